/* SPDX-License-Identifier: Apache-2.0 */
/* cmocka suite for src/ioctl: names both ways, the filter table, exact
 * printed lines (text and JSON), every truncation of the parameter blocks
 * and random garbage printing raw instead of crashing, deny decisions,
 * counters. Live tests (a real filter) are tests/ioctl/run.sh. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "ioctl/ioctl.h"
#include "ioctl/ioctl_int.h"
#include "print.h"

#define RM_CONTROL 0xC020462AUL
#define RM_FREE 0xC0104629UL
#define RM_ALLOC64 0xC030462BUL
#define RM_ALLOC21 0xC020462BUL

/* ---- helpers ------------------------------------------------------------ */

static char *render(enum tp_format fmt, const struct td_ioctl_event *ev, int verbose)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    struct tp p;
    tp_init(&p, fmt, f);
    p.verbose = verbose;
    td_ioctl_print(&p, ev);
    tp_line_end(&p);
    tp_free(&p);
    fclose(f);
    return buf;
}

static void expect_line(const struct td_ioctl_event *ev, enum tp_format fmt, const char *want)
{
    char *got = render(fmt, ev, 0);
    assert_string_equal(got, want);
    free(got);
}

static void ev_init(struct td_ioctl_event *ev, const char *path, unsigned long request, const void *arg,
                    size_t len, unsigned long long argp)
{
    memset(ev, 0, sizeof(*ev));
    ev->pid = ev->tid = 100;
    ev->fd = 5;
    snprintf(ev->path, sizeof(ev->path), "%s", path);
    ev->request = request;
    ev->argp = argp;
    if (arg && len) {
        memcpy(ev->arg, arg, len);
        ev->arglen = len;
        ev->have_arg = 1;
    }
    const struct td_family *f = td_family_for(request, path);
    ev->argwant = f ? f->argsize(request) : TD_IOC_SIZE(request);
}

struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };

static struct nvos54 sample54(void)
{
    struct nvos54 c = { 0xc1d00001, 0x5c000001, 0x20800110, 0, 0x7ffd0000, 16, 0 };
    return c;
}

/* ---- names --------------------------------------------------------------- */

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(td_ioctl_name(RM_CONTROL), "NV_ESC_RM_CONTROL");
    assert_string_equal(td_ioctl_name(RM_FREE), "NV_ESC_RM_FREE");
    assert_string_equal(td_ioctl_name(RM_ALLOC64), "NV_ESC_RM_ALLOC");
    assert_string_equal(td_ioctl_name(RM_ALLOC21), "NV_ESC_RM_ALLOC");
    assert_string_equal(td_ioctl_name(0xC00446C9UL), "NV_ESC_REGISTER_FD");
    assert_string_equal(td_ioctl_name(0xC04846D2UL), "NV_ESC_CHECK_VERSION_STR");
    assert_string_equal(td_ioctl_name(0x30000001UL), "UVM_INITIALIZE");
    assert_string_equal(td_ioctl_name(0x30000002UL), "UVM_DEINITIALIZE");
    assert_string_equal(td_ioctl_name(23), "UVM_CREATE_RANGE_GROUP");
    assert_string_equal(td_ioctl_name(75), "UVM_MM_INITIALIZE");
    assert_string_equal(td_ioctl_name(TD_IOWR(0x64, 0x00, 64)), "DRM_IOCTL_VERSION");
    assert_string_equal(td_ioctl_name(TD_IOWR(0x64, 0xbf, 8)), "DRM_IOCTL_SYNCOBJ_CREATE");
    assert_string_equal(td_ioctl_name(TD_IOC(2, 0x4b, 0x01, 8)), "AMDKFD_IOC_GET_VERSION");
    assert_null(td_ioctl_name(0x5401));          /* TCGETS */
    assert_null(td_ioctl_name(0x541B));          /* FIONREAD */
    assert_null(td_ioctl_name(TD_IOWR(0x46, 0x99, 16)));
    assert_null(td_ioctl_name(22));
    assert_int_equal(td_ioctl_family_of(RM_CONTROL), TD_IOF_NVIDIA);
    assert_int_equal(td_ioctl_family_of(34), TD_IOF_UVM);
    assert_int_equal(td_ioctl_family_of(0x5401), TD_IOF_NONE);
}

static void test_lookup_both_ways(void **state)
{
    (void)state;
    static const char *const nv[] = { "NV_ESC_RM_ALLOC_MEMORY", "NV_ESC_RM_FREE", "NV_ESC_RM_CONTROL",
                                      "NV_ESC_RM_ALLOC", "NV_ESC_RM_DUP_OBJECT", "NV_ESC_RM_MAP_MEMORY",
                                      "NV_ESC_CARD_INFO", "NV_ESC_WAIT_OPEN_COMPLETE", "NV_ESC_IOCTL_XFER_CMD" };
    for (size_t i = 0; i < sizeof(nv) / sizeof(nv[0]); i++) {
        unsigned long v = 0;
        assert_int_equal(td_ioctl_lookup_name(nv[i], &v), TD_IOF_NVIDIA);
        assert_true(v < 256);
        assert_string_equal(td_ioctl_name(TD_IOWR(0x46, v, 32)), nv[i]);
    }
    const unsigned long *n;
    size_t k = td_uvm_numbers(&n);
    assert_true(k >= 30);
    for (size_t i = 0; i < k; i++) {
        const char *name = td_ioctl_name(n[i]);
        assert_non_null(name);
        unsigned long v = 0;
        assert_int_equal(td_ioctl_lookup_name(name, &v), TD_IOF_UVM);
        assert_int_equal(v, n[i]);
    }
    unsigned long v;
    assert_int_equal(td_ioctl_lookup_name("DRM_IOCTL_GEM_CLOSE", &v), TD_IOF_DRM);
    assert_int_equal(v, 0x09);
    assert_int_equal(td_ioctl_lookup_name("AMDKFD_IOC_ALLOC_MEMORY_OF_GPU", &v), TD_IOF_KFD);
    assert_string_equal(td_ioctl_name(TD_IOWR(0x4b, v, 40)), "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
    assert_int_equal(td_ioctl_lookup_name("NV_ESC_NO_SUCH", &v), -ENOENT);
    assert_int_equal(td_ioctl_lookup_name(NULL, &v), -ENOENT);
}

static void test_status_and_class_names(void **state)
{
    (void)state;
    assert_string_equal(td_nv_status_name(0), "NV_OK");
    assert_string_equal(td_nv_status_name(0x1f), "NV_ERR_INVALID_ARGUMENT");
    assert_string_equal(td_nv_status_name(0x56), "NV_ERR_NOT_SUPPORTED");
    assert_string_equal(td_nv_status_name(0xffff), "NV_ERR_GENERIC");
    assert_string_equal(td_nv_status_name(0x10006), "NV_WARN_NOTHING_TO_DO");
    assert_null(td_nv_status_name(0x12345));
    assert_string_equal(td_nv_class_name(0x41), "NV01_ROOT_CLIENT");
    assert_string_equal(td_nv_class_name(0x2080), "NV20_SUBDEVICE_0");
    assert_string_equal(td_nv_class_name(0xc6c0), "AMPERE_COMPUTE_A");
    assert_null(td_nv_class_name(0x1234567));
}

/* ---- the filter table ------------------------------------------------------ */

static void test_filter_table(void **state)
{
    (void)state;
    assert_true(td_ioctl_filter_matches(RM_CONTROL));
    assert_true(td_ioctl_filter_matches(TD_IOWR(0x46, 0x99, 16)));   /* unknown NVIDIA: still seen */
    assert_true(td_ioctl_filter_matches(0x30000001));
    assert_true(td_ioctl_filter_matches(23));
    assert_true(td_ioctl_filter_matches(75));
    assert_true(td_ioctl_filter_matches(TD_IOWR(0x64, 0x00, 64)));
    assert_true(td_ioctl_filter_matches(TD_IOWR(0x4b, 0x01, 8)));
    /* the kernel ignores the upper half of the request */
    assert_true(td_ioctl_filter_matches(0xffffffff00000000UL | RM_CONTROL));
    assert_true(td_ioctl_filter_matches(0xffffffff00000000UL | 34));
    assert_false(td_ioctl_filter_matches(0x5401));   /* TCGETS */
    assert_false(td_ioctl_filter_matches(0x541B));   /* FIONREAD */
    assert_false(td_ioctl_filter_matches(0x5413));   /* TIOCGWINSZ */
    assert_false(td_ioctl_filter_matches(0x8912));   /* SIOCGIFCONF */
    assert_false(td_ioctl_filter_matches(22));
    assert_false(td_ioctl_filter_matches(76));
    assert_false(td_ioctl_filter_matches(0x30000003));
    const struct td_ioctl_match *m;
    size_t n = td_ioctl_filter_table(&m);
    assert_true(n > 30);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(m[i].what);
        assert_int_equal(m[i].value & ~m[i].mask, 0);
        assert_int_equal(m[i].mask >> 32, 0);
    }
}

/* ---- exact lines ------------------------------------------------------------- */

static void test_print_rm_control(void **state)
{
    (void)state;
    struct nvos54 c = sample54();
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidiactl", RM_CONTROL, &c, sizeof(c), 0x7ffc1000);
    /* let through: the result is not known, output fields are not shown */
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, "
                "cmd=0x20800110, flags=0, params=0x7ffd0000, paramsSize=16}) = ?\n");
    /* a known result (a tracer filled it in) shows status */
    ev.result_known = 1;
    ev.ret = 0;
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, "
                "cmd=0x20800110, flags=0, params=0x7ffd0000, paramsSize=16, status=NV_OK}) = 0\n");
    c.status = 0x1f;
    memcpy(ev.arg, &c, sizeof(c));
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, "
                "cmd=0x20800110, flags=0, params=0x7ffd0000, paramsSize=16, status=NV_ERR_INVALID_ARGUMENT}) = 0\n");
    c.status = 0x12345;
    memcpy(ev.arg, &c, sizeof(c));
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, {hClient=0xc1d00001, hObject=0x5c000001, "
                "cmd=0x20800110, flags=0, params=0x7ffd0000, paramsSize=16, status=0x12345}) = 0\n");
}

static void test_print_json(void **state)
{
    (void)state;
    struct nvos54 c = sample54();
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidiactl", RM_CONTROL, &c, sizeof(c), 0x7ffc1000);
    expect_line(&ev, TP_JSON,
                "\"call\":\"ioctl\",\"args\":{\"fd\":5,\"path\":\"/dev/nvidiactl\",\"request\":\"NV_ESC_RM_CONTROL\","
                "\"arg\":{\"hClient\":\"0xc1d00001\",\"hObject\":\"0x5c000001\",\"cmd\":\"0x20800110\",\"flags\":\"0\","
                "\"params\":\"0x7ffd0000\",\"paramsSize\":16}},\"ret\":0,\"retname\":\"?\"\n");
    struct td_ioctl_rule r = { "NV_ESC_RM_CONTROL", 0, 0, 13, NULL, "tdtrace.policy", 3 };
    ev.denied = 1;
    ev.result_known = 1;
    ev.ret = -1;
    ev.err = 13;
    ev.rule = &r;
    expect_line(&ev, TP_JSON,
                "\"call\":\"ioctl\",\"args\":{\"fd\":5,\"path\":\"/dev/nvidiactl\",\"request\":\"NV_ESC_RM_CONTROL\","
                "\"arg\":{\"hClient\":\"0xc1d00001\",\"hObject\":\"0x5c000001\",\"cmd\":\"0x20800110\",\"flags\":\"0\","
                "\"params\":\"0x7ffd0000\",\"paramsSize\":16}},\"ret\":-13,\"retname\":\"EACCES\","
                "\"denied\":\"tdtrace.policy:3\"\n");
}

static void test_print_denied_text(void **state)
{
    (void)state;
    uint32_t f[4] = { 0xc1d00001, 0xc1d00001, 0x5c000002, 0 };
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidia0", RM_FREE, f, sizeof(f), 0x1000);
    struct td_ioctl_rule r = { "NV_ESC_RM_FREE", 0, 0, 0, "/dev/nvidia0", "tdtrace.policy", 7 };
    ev.rule = &r;
    ev.denied = 1;
    ev.result_known = 1;
    ev.ret = -1;
    ev.err = 1;
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidia0>, NV_ESC_RM_FREE, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, "
                "hObjectOld=0x5c000002}) = EPERM (-1) (DENIED by tdtrace.policy:7)\n");
    ev.denied = 0;
    ev.result_known = 0;
    ev.would_deny = 1;
    r.file = NULL;
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidia0>, NV_ESC_RM_FREE, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, "
                "hObjectOld=0x5c000002}) = ? (would be DENIED by --ioctl-deny=NV_ESC_RM_FREE)\n");
}

static void test_print_uvm_and_alloc(void **state)
{
    (void)state;
    struct { uint64_t flags; uint32_t rmStatus, pad; } u = { 2, 0, 0 };
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidia-uvm", 0x30000001, &u, sizeof(u), 0x2000);
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, UVM_INITIALIZE, {flags=0x2}) = ?\n");
    ev.result_known = 1;
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, UVM_INITIALIZE, {flags=0x2, rmStatus=NV_OK}) = 0\n");

    unsigned char reg[40] = { 0 };
    for (int i = 0; i < 16; i++)
        reg[i] = (unsigned char)(0xa0 + i);
    uint32_t v = 7;
    memcpy(reg + 24, &v, 4);      /* rmCtrlFd */
    v = 0xc1d00001;
    memcpy(reg + 28, &v, 4);
    ev_init(&ev, "/dev/nvidia-uvm", 37, reg, sizeof(reg), 0x2000);
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidia-uvm>, UVM_REGISTER_GPU, {gpuUuid=GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf, "
                "rmCtrlFd=7, hClient=0xc1d00001, hSmcPartRef=0}) = ?\n");

    uint32_t a[8] = { 0xc1d00001, 0xc1d00001, 0x5c000003, 0x80, 0x5000, 0, 56, 0 };
    ev_init(&ev, "/dev/nvidiactl", RM_ALLOC21, a, sizeof(a), 0x3000);
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidiactl>, NV_ESC_RM_ALLOC, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, "
                "hObjectNew=0x5c000003, hClass=NV01_DEVICE_0, pAllocParms=0x5000, paramsSize=56}) = ?\n");

    /* an unknown number, and a known one with a size no driver uses */
    ev_init(&ev, "/dev/nvidiactl", TD_IOWR(0x46, 0x99, 16), a, 16, 0x3000);
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidiactl>, _IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x99, 0x10), 0x3000) = ?\n");
    ev_init(&ev, "/dev/nvidiactl", TD_IOWR(0x46, 0x2a, 24), a, 24, 0x3000);
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, 0x3000) = ?\n");
    ev_init(&ev, "/dev/nvidia-uvm", 0x30000099, NULL, 0, 0x3000);
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, 0x30000099, 0x3000) = ?\n");
    /* raw bytes with -v */
    ev_init(&ev, "/dev/dri/renderD128", TD_IOWR(0x64, 0x00, 4), "\x01\x02\x03\x04", 4, 0x3000);
    char *got = render(TP_TEXT, &ev, 1);
    assert_string_equal(got, "ioctl(5</dev/dri/renderD128>, DRM_IOCTL_VERSION, \"01020304\") = ?\n");
    free(got);
}

/* UVM numbers carry no size: a block whose layout changed is decoded for
 * the loaded driver (UVM_FREE lost its length in 590) */
static void test_uvm_driver_versions(void **state)
{
    (void)state;
    uint64_t blk[3] = { 0x7f0000200000, 0x200000, 0 };
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidia-uvm", 34, blk, sizeof(blk), 0x2000);
    ev.result_known = 1;
    td_ioctl_set_driver_version(0);     /* unknown: current layouts */
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, UVM_FREE, {base=0x7f0000200000, rmStatus=0x200000}) = 0\n");
    blk[1] = 0;
    ev_init(&ev, "/dev/nvidia-uvm", 34, blk, sizeof(blk), 0x2000);
    ev.result_known = 1;
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, UVM_FREE, {base=0x7f0000200000, rmStatus=NV_OK}) = 0\n");
    td_ioctl_set_driver_version(580);
    blk[1] = 0x200000;
    ev_init(&ev, "/dev/nvidia-uvm", 34, blk, sizeof(blk), 0x2000);
    ev.result_known = 1;
    expect_line(&ev, TP_TEXT,
                "ioctl(5</dev/nvidia-uvm>, UVM_FREE, {base=0x7f0000200000, length=0x200000, rmStatus=NV_OK}) = 0\n");
    td_ioctl_set_driver_version(595);
    uint32_t ch[3] = { 0xc1d00001, 0x5c000007, 0 };
    ev_init(&ev, "/dev/nvidia-uvm", 28, ch, sizeof(ch), 0x2000);
    expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidia-uvm>, UVM_UNREGISTER_CHANNEL, {hClient=0xc1d00001, hChannel=0x5c000007}) = ?\n");
    td_ioctl_set_driver_version(0);

    assert_int_equal(td_ioctl_parse_driver_version("590.44.01\n"), 590);
    assert_int_equal(td_ioctl_parse_driver_version("515.43.04"), 515);
    assert_int_equal(td_ioctl_parse_driver_version(""), 0);
    assert_int_equal(td_ioctl_parse_driver_version("NVRM version"), 0);
    assert_int_equal(td_ioctl_parse_driver_version("590"), 0);
    assert_int_equal(td_ioctl_parse_driver_version(NULL), 0);
}

/* Every structure the .def files describe is a possible C layout: fields
 * in order, inside the structure, each at its natural alignment, the size
 * a multiple of the widest field's alignment (unless the description
 * stops early with MORE), and every UVM block ends with its rmStatus.
 * This catches a mistyped offset; docs/nvidia-ioctls.md says how the
 * layouts were checked against NVIDIA's own headers. */
#define NV_STRUCT(id, cname, size, ...) TD_DEFINE_STRUCT(nv_##id, cname, size, __VA_ARGS__)
#include "ioctl/nvidia.def"
#define UVM_STRUCT(id, cname, size, ...) TD_DEFINE_STRUCT(uvm_##id, cname, size, __VA_ARGS__)
#include "ioctl/uvm.def"
static const struct td_struct *const nv_structs[] = {
#define NV_STRUCT(id, cname, size, ...) &td_s_nv_##id,
#include "ioctl/nvidia.def"
};
static const struct td_struct *const uvm_structs[] = {
#define UVM_STRUCT(id, cname, size, ...) &td_s_uvm_##id,
#include "ioctl/uvm.def"
};

static void check_layout(const struct td_struct *s, int uvm)
{
    size_t end = 0, maxalign = 1;
    int partial = 0;
    for (int i = 0; i < s->nf; i++) {
        const struct td_field *f = &s->f[i];
        size_t w = td_field_width(f);
        if (f->off < end || (f->kind == TD_FK_MORE && i != s->nf - 1))
            fail_msg("%s.%s: offset %u overlaps the field before or follows MORE", s->name, f->name, f->off);
        if (f->kind == TD_FK_MORE) {
            if (f->off > s->size)
                fail_msg("%s.%s: MORE at %u past the size %u", s->name, f->name, f->off, s->size);
            partial = 1;
            continue;
        }
        size_t align = (w == 2 || w == 4 || w == 8) ? w : 1;
        if (f->off % align)
            fail_msg("%s.%s: offset %u not aligned to %zu", s->name, f->name, f->off, align);
        if (f->off + w > s->size)
            fail_msg("%s.%s: ends at %zu past the size %u", s->name, f->name, f->off + w, s->size);
        if (align > maxalign)
            maxalign = align;
        end = f->off + w;
    }
    if (!partial && s->size % maxalign)
        fail_msg("%s: size %u is not a multiple of %zu", s->name, s->size, maxalign);
    if (uvm && !partial) {
        const struct td_field *last = &s->f[s->nf - 1];
        if (last->kind != TD_FK_NVSTATUS || strcmp(last->name, "rmStatus") != 0 || s->size - last->off > 8)
            fail_msg("%s: does not end with its rmStatus", s->name);
    }
}

static void test_struct_layouts(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(nv_structs) / sizeof(nv_structs[0]); i++)
        check_layout(nv_structs[i], 0);
    for (size_t i = 0; i < sizeof(uvm_structs) / sizeof(uvm_structs[0]); i++)
        check_layout(uvm_structs[i], 1);
    assert_true(sizeof(nv_structs) / sizeof(nv_structs[0]) > 20);
    assert_true(sizeof(uvm_structs) / sizeof(uvm_structs[0]) > 20);
}

/* ---- truncation and garbage ------------------------------------------------------ */

static void test_every_truncation(void **state)
{
    (void)state;
    static const unsigned long reqs[] = {
        RM_CONTROL, RM_FREE, RM_ALLOC64, RM_ALLOC21, 0xC0384627UL /* ALLOC_MEMORY 56 */,
        TD_IOWR(0x46, 0x4e, 56), TD_IOWR(0x46, 0x4f, 32), TD_IOWR(0x46, 0x57, 56), TD_IOWR(0x46, 0x57, 64),
        TD_IOWR(0x46, 0x58, 40), TD_IOWR(0x46, 0x58, 48), TD_IOWR(0x46, 0x34, 28), TD_IOWR(0x46, 0x4a, 184),
        TD_IOWR(0x46, 0xc8, 144), TD_IOWR(0x46, 0xd2, 72), TD_IOWR(0x46, 0xd3, 16), TD_IOWR(0x46, 0xd4, 8),
        TD_IOWR(0x46, 0xda, 8), 0x30000001, 25, 27, 37, 42, 51, 62, 75,
    };
    unsigned char full[512];
    for (size_t i = 0; i < sizeof(full); i++)
        full[i] = (unsigned char)(i * 7 + 1);
    for (size_t r = 0; r < sizeof(reqs) / sizeof(reqs[0]); r++) {
        struct td_ioctl_event ev;
        ev_init(&ev, "/dev/nvidiactl", reqs[r], NULL, 0, 0x4000);
        size_t want = ev.argwant < sizeof(full) ? ev.argwant : sizeof(full);
        for (size_t len = 0; len <= want; len++) {
            for (int known = 0; known < 2; known++) {
                ev_init(&ev, strncmp(td_ioctl_name(reqs[r]), "UVM", 3) ? "/dev/nvidiactl" : "/dev/nvidia-uvm",
                        reqs[r], full, len, 0x4000);
                ev.result_known = known;
                char *t = render(TP_TEXT, &ev, 0);
                char *j = render(TP_JSON, &ev, 0);
                assert_non_null(strstr(t, td_ioctl_name(reqs[r])));
                if (len < want && reqs[r] != TD_IOWR(0x46, 0xd3, 16)) {
                    /* short: the address only */
                    char tail[64];
                    snprintf(tail, sizeof(tail), ", 0x4000) = %s\n", known ? "0" : "?");
                    assert_non_null(strstr(t, tail));
                }
                free(t);
                free(j);
            }
        }
    }
    /* the exact line for a short RM_CONTROL block */
    struct nvos54 c = sample54();
    for (size_t len = 0; len < sizeof(c); len++) {
        struct td_ioctl_event ev;
        ev_init(&ev, "/dev/nvidiactl", RM_CONTROL, &c, len, 0x4000);
        expect_line(&ev, TP_TEXT, "ioctl(5</dev/nvidiactl>, NV_ESC_RM_CONTROL, 0x4000) = ?\n");
    }
}

static void test_random_garbage(void **state)
{
    (void)state;
    srand(12345);
    static const char *const paths[] = { "/dev/nvidiactl", "/dev/nvidia0", "/dev/nvidia-uvm", "/dev/dri/card0",
                                         "/dev/kfd", "/tmp/x", "" };
    for (int iter = 0; iter < 20000; iter++) {
        unsigned char blk[512];
        for (size_t i = 0; i < sizeof(blk); i++)
            blk[i] = (unsigned char)rand();
        unsigned long req;
        switch (rand() % 5) {
        case 0: req = TD_IOC((unsigned)rand() & 3, 0x46, (unsigned)rand() & 0xff, (unsigned)rand() & 0x3fff); break;
        case 1: req = (unsigned long)(rand() % 80); break;
        case 2: req = 0x30000000UL | (unsigned long)(rand() % 4); break;
        case 3: req = TD_IOC((unsigned)rand() & 3, rand() % 2 ? 0x64 : 0x4b, (unsigned)rand() & 0xff, 64); break;
        default: req = (unsigned long)(unsigned)rand(); break;
        }
        struct td_ioctl_event ev;
        ev_init(&ev, paths[rand() % 7], req, blk, (size_t)(rand() % 513), (unsigned long long)rand());
        ev.result_known = rand() % 2;
        ev.denied = rand() % 4 == 0;
        ev.ret = rand() % 3 - 1;
        ev.err = rand() % 140;
        char *t = render(TP_TEXT, &ev, rand() % 2);
        char *j = render(rand() % 2 ? TP_JSON : TP_TEXT, &ev, 0);
        assert_true(strncmp(t, "ioctl(", 6) == 0);
        assert_non_null(strchr(t, '\n'));
        free(t);
        free(j);
    }
}

/* ---- decisions and counters -------------------------------------------------------- */

static void test_gpu_paths(void **state)
{
    (void)state;
    const char *globs[] = { "/tmp/fakegpu*" };
    struct td_ioctl_ctx *c = td_ioctl_new(globs, 1, NULL, 0, 1);
    assert_non_null(c);
    assert_true(td_ioctl_is_gpu_path(c, "/dev/nvidiactl"));
    assert_true(td_ioctl_is_gpu_path(c, "/dev/nvidia-uvm"));
    assert_true(td_ioctl_is_gpu_path(c, "/dev/nvidia-caps/nvidia-cap1"));
    assert_true(td_ioctl_is_gpu_path(c, "/dev/dri/renderD128"));
    assert_true(td_ioctl_is_gpu_path(c, "/dev/kfd"));
    assert_true(td_ioctl_is_gpu_path(c, "/tmp/fakegpu0"));
    assert_false(td_ioctl_is_gpu_path(c, "/dev/pts/3"));
    assert_false(td_ioctl_is_gpu_path(c, "pipe:[1234]"));
    assert_false(td_ioctl_is_gpu_path(c, "/dev/null"));
    assert_false(td_ioctl_is_gpu_path(c, ""));
    assert_false(td_ioctl_is_gpu_path(NULL, "/tmp/fakegpu0"));
    td_ioctl_free(c);
}

static void test_deny_decisions(void **state)
{
    (void)state;
    struct td_ioctl_rule rules[] = {
        { "NV_ESC_RM_FREE", 0, 0, 13, NULL, "p", 1 },
        { "NV_ESC_RM_CONTROL", 0, 0, 0, "/dev/nvidia1", "p", 2 },
        { NULL, 0xc00846d6, 1, 19, NULL, NULL, 0 },
        { "UVM_FREE", 0, 0, 0, NULL, "p", 4 },
        { "NO_SUCH_IOCTL", 0, 0, 0, NULL, "p", 5 },
    };
    struct td_ioctl_ctx *c = td_ioctl_new(NULL, 0, rules, 5, 1);
    assert_non_null(c);
    struct td_ioctl_event ev;
    uint32_t blk[8] = { 0 };
    ev_init(&ev, "/dev/nvidiactl", RM_FREE, blk, 16, 0x1000);
    const struct td_ioctl_rule *r = td_ioctl_int_decide(c, &ev);
    assert_non_null(r);
    assert_int_equal(r->line, 1);
    ev_init(&ev, "/dev/pts/0", RM_FREE, blk, 16, 0x1000);          /* not a GPU node */
    assert_null(td_ioctl_int_decide(c, &ev));
    ev_init(&ev, "/dev/nvidia0", RM_CONTROL, blk, 32, 0x1000);      /* rule names nvidia1 */
    assert_null(td_ioctl_int_decide(c, &ev));
    ev_init(&ev, "/dev/nvidia1", RM_CONTROL, blk, 32, 0x1000);
    r = td_ioctl_int_decide(c, &ev);
    assert_non_null(r);
    assert_int_equal(r->line, 2);
    ev_init(&ev, "/dev/nvidiactl", 0xffffffff00000000UL | 0xc00846d6UL, blk, 8, 0x1000);
    ev.request &= 0xffffffffUL;
    r = td_ioctl_int_decide(c, &ev);
    assert_non_null(r);
    assert_int_equal(r->err, 19);
    ev_init(&ev, "/dev/nvidia-uvm", 34, blk, 24, 0x1000);
    assert_non_null(td_ioctl_int_decide(c, &ev));
    ev_init(&ev, "/dev/nvidia-uvm", 35, blk, 24, 0x1000);
    assert_null(td_ioctl_int_decide(c, &ev));
    /* RM_FREE wrapped in NV_ESC_IOCTL_XFER_CMD */
    uint32_t x[4] = { 0x29, 16, 0x1000, 0 };
    ev_init(&ev, "/dev/nvidiactl", TD_IOWR(0x46, 0xd3, 16), x, 16, 0x1000);
    assert_non_null(td_ioctl_int_decide(c, &ev));
    /* the driver ignores the type byte on its own nodes */
    ev_init(&ev, "/dev/nvidiactl", TD_IOWR(0x58, 0x29, 16), blk, 16, 0x1000);
    assert_non_null(td_ioctl_int_decide(c, &ev));
    td_ioctl_free(c);
}

static void quiet(void *o, const char *msg)
{
    (*(int *)o)++;
    (void)msg;
}

static void test_counters_and_bypass(void **state)
{
    (void)state;
    struct td_ioctl_ctx *c = td_ioctl_new(NULL, 0, NULL, 0, 1);
    int warnings = 0;
    td_ioctl_set_warn(c, quiet, &warnings);
    struct td_ioctl_event ev;
    struct nvos54 s = sample54();
    for (int i = 0; i < 3; i++) {
        ev_init(&ev, "/dev/nvidiactl", RM_CONTROL, &s, sizeof(s), 0x1000);
        ev.pid = 10;
        ev.t_enter_ns = 1000;
        ev.t_exit_ns = 1500;
        td_ioctl_int_account(c, &ev);
    }
    ev_init(&ev, "/dev/nvidiactl", RM_FREE, &s, 16, 0x1000);
    ev.pid = 11;
    ev.denied = 1;
    td_ioctl_int_account(c, &ev);
    for (int i = 0; i < 2; i++) {
        ev_init(&ev, "/dev/nvidiactl", TD_IOWR(0x46, 0x99, 8), &s, 8, 0x1000);
        ev.pid = 11;
        td_ioctl_int_account(c, &ev);
    }
    assert_int_equal(warnings, 1);   /* one per family */
    const struct td_ioctl_stat *st;
    size_t n = td_ioctl_stats(c, &st);
    assert_int_equal(n, 3);
    assert_string_equal(st[0].name, "NV_ESC_RM_CONTROL");
    assert_int_equal(st[0].calls, 3);
    assert_int_equal(st[0].time_ns, 1500);
    assert_string_equal(st[1].name, "NV_ESC_RM_FREE");
    assert_int_equal(st[1].errors, 1);
    assert_int_equal(st[1].denied, 1);
    assert_string_equal(st[2].name, "_IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x99, 0x8)");
    assert_int_equal(st[2].calls, 2);

    int pids[4];
    assert_int_equal(td_ioctl_bypass(c, pids, 4), 2);
    td_ioctl_mark_shim(c, 10);
    td_ioctl_mark_shim(c, 12);       /* loaded the shim, no ioctls: not a bypass */
    assert_int_equal(td_ioctl_bypass(c, pids, 4), 1);
    assert_int_equal(pids[0], 11);
    const struct td_ioctl_pid_stat *ps;
    assert_int_equal(td_ioctl_pid_stats(c, &ps), 3);
    td_ioctl_free(c);
}

/* a result learned after the call: errno, the block as the driver left
 * it, the error counted */
static void test_complete(void **state)
{
    (void)state;
    struct td_ioctl_ctx *c = td_ioctl_new(NULL, 0, NULL, 0, 1);
    int warnings = 0;
    td_ioctl_set_warn(c, quiet, &warnings);
    struct nvos54 live = sample54();
    struct td_ioctl_event ev;
    ev_init(&ev, "/dev/nvidiactl", RM_CONTROL, &live, sizeof(live), (uintptr_t)&live);
    ev.pid = ev.tid = (int)getpid();
    ev.argwant = sizeof(live);
    ev.t_enter_ns = 1000;
    ev.t_exit_ns = 2000;
    ev.result_pending = 1;
    td_ioctl_int_account(c, &ev);
    live.status = 0x1f;   /* what the driver wrote back */
    td_ioctl_complete(c, &ev, -25);
    assert_false(ev.result_pending);
    assert_true(ev.result_known);
    assert_int_equal(ev.ret, -1);
    assert_int_equal(ev.err, 25);
    struct nvos54 seen;
    memcpy(&seen, ev.arg, sizeof(seen));
    assert_int_equal(seen.status, 0x1f);
    const struct td_ioctl_stat *st;
    assert_int_equal(td_ioctl_stats(c, &st), 1);
    assert_int_equal(st[0].errors, 1);
    assert_true(st[0].time_ns > 1000);
    td_ioctl_complete(c, &ev, 0);
    assert_int_equal(ev.ret, 0);
    assert_int_equal(ev.err, 0);
    assert_int_equal(st[0].errors, 1);
    td_ioctl_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_lookup_both_ways),
        cmocka_unit_test(test_status_and_class_names),
        cmocka_unit_test(test_filter_table),
        cmocka_unit_test(test_print_rm_control),
        cmocka_unit_test(test_print_json),
        cmocka_unit_test(test_print_denied_text),
        cmocka_unit_test(test_print_uvm_and_alloc),
        cmocka_unit_test(test_uvm_driver_versions),
        cmocka_unit_test(test_struct_layouts),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_random_garbage),
        cmocka_unit_test(test_gpu_paths),
        cmocka_unit_test(test_deny_decisions),
        cmocka_unit_test(test_counters_and_bypass),
        cmocka_unit_test(test_complete),
    };
    return cmocka_run_group_tests_name("ioctl", tests, NULL, NULL);
}
