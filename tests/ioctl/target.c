/* SPDX-License-Identifier: Apache-2.0 */
/* The program run under tests/ioctl/harness: it makes GPU-style ioctls on
 * files the harness treats as GPU nodes and writes the lines the harness
 * must print to EXPECTED (strace's test model). Every ioctl is checked for
 * what the kernel really returned, so a call let through must have run
 * (a regular file answers ENOTTY) and a denied one must carry the errno.
 *
 *   target MODE DIR EXPECTED [trapall]
 *   MODE: basic | deny | audit | threads | kill | orphan */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define IOWR(type, nr, size) ((unsigned long)((3UL << 30) | ((unsigned long)(size) << 16) | ((type) << 8) | (nr)))
#define RM_FREE IOWR('F', 0x29, 16)
#define RM_CONTROL IOWR('F', 0x2a, 32)
#define RM_ALLOC64 IOWR('F', 0x2b, 48)
#define XFER IOWR('F', 0xd3, 16)
#define VERSION IOWR('F', 0xd2, 72)
#define SYS_PARAMS IOWR('F', 0xd6, 8)
#define UVM_INITIALIZE 0x30000001UL

struct nvos00 { uint32_t hRoot, hObjectParent, hObjectOld, status; };
struct nvos54 { uint32_t hClient, hObject, cmd, flags; uint64_t params; uint32_t paramsSize, status; };
struct nvos64 {
    uint32_t hRoot, hObjectParent, hObjectNew, hClass;
    uint64_t pAllocParms, pRightsRequested;
    uint32_t paramsSize, flags, status, pad;
};
struct xfer { uint32_t cmd, size; uint64_t ptr; };
struct version { uint32_t cmd, reply; char versionString[64]; };
struct uvm_init { uint64_t flags; uint32_t rmStatus, pad; };

static FILE *exp_f;
static char gpu_path[4096], uvm_path[4096];
static int fails;

#define CHECK(cond, ...)                                      \
    do {                                                      \
        if (!(cond)) {                                        \
            fprintf(stderr, "target: FAIL line %d: ", __LINE__); \
            fprintf(stderr, __VA_ARGS__);                     \
            fputc('\n', stderr);                              \
            fails++;                                          \
        }                                                     \
    } while (0)

/* the call must have run in the kernel: a regular file says ENOTTY */
static void ran(long rc, const char *what)
{
    CHECK(rc == -1 && errno == ENOTTY, "%s: want -1 ENOTTY, got %ld errno %d", what, rc, errno);
}

static long sys_ioctl(int fd, unsigned long req, void *arg)
{
    return syscall(SYS_ioctl, fd, req, arg);
}

static void rm_control(struct nvos54 *p, uint32_t hObject, void *params)
{
    memset(p, 0, sizeof(*p));
    p->hClient = 0xc1d00001;
    p->hObject = hObject;
    p->cmd = 0x20800110;
    p->params = (uintptr_t)params;
    p->paramsSize = 16;
    p->status = 0x55;   /* garbage the driver would overwrite: never printed at entry */
}

static void exp_rm_control(int fd, const char *path, const struct nvos54 *p, const char *result)
{
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_CONTROL, {hClient=%#x, hObject=%#x, cmd=%#x, flags=0, params=",
            fd, path, p->hClient, p->hObject, p->cmd);
    if (p->params)
        fprintf(exp_f, "%#llx", (unsigned long long)p->params);
    else
        fprintf(exp_f, "NULL");
    fprintf(exp_f, ", paramsSize=%u}) = %s\n", p->paramsSize, result);
}

static void open_nodes(const char *dir)
{
    char tmp[4096];
    snprintf(tmp, sizeof(tmp), "%s/gpu0", dir);
    if (!realpath(tmp, gpu_path))
        exit(2);
    snprintf(tmp, sizeof(tmp), "%s/gpu-uvm", dir);
    if (!realpath(tmp, uvm_path))
        exit(2);
}

static void non_gpu(void)
{
    /* TCGETS on a pty and FIONREAD on a pipe: untouched, never printed */
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    CHECK(m >= 0, "posix_openpt");
    struct termios t;
    CHECK(ioctl(m, TCGETS, &t) == 0, "TCGETS on a pty: errno %d", errno);
    close(m);
    int pfd[2];
    CHECK(pipe(pfd) == 0, "pipe");
    CHECK(write(pfd[1], "abc", 3) == 3, "write");
    int avail = -1;
    CHECK(ioctl(pfd[0], FIONREAD, &avail) == 0 && avail == 3, "FIONREAD on a pipe: %d", avail);
    close(pfd[0]);
    close(pfd[1]);
    /* a GPU-looking request on a non-GPU file: let through, not printed */
    int dn = open("/dev/null", O_RDWR);
    struct nvos54 p;
    rm_control(&p, 1, NULL);
    ran(ioctl(dn, RM_CONTROL, &p), "RM_CONTROL on /dev/null");
    close(dn);
}

static int mode_basic(const char *dir, int trapall)
{
    open_nodes(dir);
    int fd = open(gpu_path, O_RDWR), ufd = open(uvm_path, O_RDWR);
    CHECK(fd >= 0 && ufd >= 0, "open");
    unsigned char params[16] = { 0 };

    struct nvos54 c;
    rm_control(&c, 0x5c000001, params);
    ran(ioctl(fd, RM_CONTROL, &c), "RM_CONTROL");
    exp_rm_control(fd, gpu_path, &c, "?");

    struct nvos00 f = { 0xc1d00001, 0xc1d00001, 0x5c000002, 0 };
    ran(ioctl(fd, RM_FREE, &f), "RM_FREE");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_FREE, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, hObjectOld=0x5c000002}) = ?\n",
            fd, gpu_path);

    struct uvm_init u = { 2, 0, 0 };
    ran(ioctl(ufd, UVM_INITIALIZE, &u), "UVM_INITIALIZE");
    fprintf(exp_f, "ioctl(%d<%s>, UVM_INITIALIZE, {flags=0x2}) = ?\n", ufd, uvm_path);

    uint32_t sub = 0;
    struct nvos64 a = { 0xc1d00001, 0x5c000001, 0x5c000003, 0x2080, (uintptr_t)&sub, 0, 4, 0, 0, 0 };
    ran(ioctl(fd, RM_ALLOC64, &a), "RM_ALLOC");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_ALLOC, {hRoot=0xc1d00001, hObjectParent=0x5c000001, "
                   "hObjectNew=0x5c000003, hClass=NV20_SUBDEVICE_0, pAllocParms=%p, pRightsRequested=NULL, "
                   "paramsSize=4, flags=0}) = ?\n", fd, gpu_path, (void *)&sub);

    unsigned char junk[16] = { 1, 2, 3 };
    ran(ioctl(fd, IOWR('F', 0x99, 16), junk), "unknown nr");
    fprintf(exp_f, "ioctl(%d<%s>, _IOC(_IOC_READ|_IOC_WRITE, 0x46, 0x99, 0x10), %p) = ?\n", fd, gpu_path,
            (void *)junk);

    struct nvos54 inner;
    rm_control(&inner, 0x5c000004, NULL);
    struct xfer x = { 0x2a, sizeof(inner), (uintptr_t)&inner };
    ran(ioctl(fd, XFER, &x), "XFER");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_IOCTL_XFER_CMD, {cmd=NV_ESC_RM_CONTROL, size=32, ptr={hClient=0xc1d00001, "
                   "hObject=0x5c000004, cmd=0x20800110, flags=0, params=NULL, paramsSize=16}}) = ?\n",
            fd, gpu_path);

    struct version v;
    memset(&v, 0, sizeof(v));
    strcpy(v.versionString, "580.65.06");
    ran(ioctl(fd, VERSION, &v), "CHECK_VERSION_STR");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_CHECK_VERSION_STR, {cmd=0, versionString=\"580.65.06\"}) = ?\n", fd,
            gpu_path);

    /* a block that runs into an unmapped page: the address, not garbage */
    long pg = sysconf(_SC_PAGESIZE);
    unsigned char *two = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(two != MAP_FAILED, "mmap");
    CHECK(mprotect(two + pg, (size_t)pg, PROT_NONE) == 0, "mprotect");
    unsigned char *edge = two + pg - 8;
    ran(ioctl(fd, RM_CONTROL, edge), "RM_CONTROL at a page edge");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_CONTROL, %p) = ?\n", fd, gpu_path, (void *)edge);

    ran(ioctl(fd, RM_FREE, NULL), "RM_FREE NULL");
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_FREE, NULL) = ?\n", fd, gpu_path);

    if (trapall) {
        /* the driver ignores the type byte: only the trap-all filter sees this */
        unsigned char blk[32] = { 0 };
        ran(ioctl(fd, IOWR('X', 0x2a, 32), blk), "type X");
        fprintf(exp_f, "ioctl(%d<%s>, _IOC(_IOC_READ|_IOC_WRITE, 0x58, 0x2a, 0x20), %p) = ?\n", fd, gpu_path,
                (void *)blk);
    }
    non_gpu();
    return fails ? 1 : 0;
}

static int mode_deny(const char *dir, int audit)
{
    open_nodes(dir);
    int fd = open(gpu_path, O_RDWR), ufd = open(uvm_path, O_RDWR);
    CHECK(fd >= 0 && ufd >= 0, "open");
    struct nvos00 f = { 0xc1d00001, 0xc1d00001, 0x5c000002, 0 };
    long rc = sys_ioctl(fd, RM_FREE, &f);   /* the raw syscall: no library to go around */
    if (audit) {
        ran(rc, "audited RM_FREE");
        fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_FREE, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, "
                       "hObjectOld=0x5c000002}) = ? (would be DENIED by --ioctl-deny=NV_ESC_RM_FREE)\n", fd, gpu_path);
        return fails ? 1 : 0;
    }
    CHECK(rc == -1 && errno == EACCES, "denied RM_FREE: %ld errno %d", rc, errno);
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_RM_FREE, {hRoot=0xc1d00001, hObjectParent=0xc1d00001, "
                   "hObjectOld=0x5c000002}) = EACCES (-13) (DENIED by --ioctl-deny=NV_ESC_RM_FREE)\n", fd, gpu_path);

    struct uvm_init u = { 0, 0, 0 };
    rc = sys_ioctl(ufd, UVM_INITIALIZE, &u);
    CHECK(rc == -1 && errno == EPERM, "denied UVM_INITIALIZE: %ld errno %d", rc, errno);
    fprintf(exp_f, "ioctl(%d<%s>, UVM_INITIALIZE, {flags=0}) = EPERM (-1) (DENIED by --ioctl-deny=UVM_INITIALIZE)\n",
            ufd, uvm_path);

    /* the rule for RM_CONTROL names another device: runs */
    struct nvos54 c;
    rm_control(&c, 0x5c000001, NULL);
    ran(sys_ioctl(fd, RM_CONTROL, &c), "RM_CONTROL (rule for another device)");
    exp_rm_control(fd, gpu_path, &c, "?");

    uint64_t sp = 0x8000000;
    rc = sys_ioctl(fd, SYS_PARAMS, &sp);
    CHECK(rc == -1 && errno == ENODEV, "denied by number: %ld errno %d", rc, errno);
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_SYS_PARAMS, {memblock_size=0x8000000}) = ENODEV (-19) "
                   "(DENIED by --ioctl-deny=0xc00846d6)\n", fd, gpu_path);

    /* RM_FREE wrapped in NV_ESC_IOCTL_XFER_CMD is still RM_FREE */
    struct xfer x = { 0x29, sizeof(f), (uintptr_t)&f };
    rc = sys_ioctl(fd, XFER, &x);
    CHECK(rc == -1 && errno == EACCES, "denied wrapped RM_FREE: %ld errno %d", rc, errno);
    fprintf(exp_f, "ioctl(%d<%s>, NV_ESC_IOCTL_XFER_CMD, {cmd=NV_ESC_RM_FREE, size=16, ptr={hRoot=0xc1d00001, "
                   "hObjectParent=0xc1d00001, hObjectOld=0x5c000002}}) = EACCES (-13) "
                   "(DENIED by --ioctl-deny=NV_ESC_RM_FREE)\n", fd, gpu_path);
    non_gpu();
    return fails ? 1 : 0;
}

#define NTHREADS 8
#define PER_THREAD 100
static int tfd;
static pthread_mutex_t exp_lock = PTHREAD_MUTEX_INITIALIZER;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) {
        struct nvos54 c;
        rm_control(&c, (uint32_t)(0x1000 * (t + 1) + i), NULL);
        ran(ioctl(tfd, RM_CONTROL, &c), "threaded RM_CONTROL");
        pthread_mutex_lock(&exp_lock);
        exp_rm_control(tfd, gpu_path, &c, "?");
        pthread_mutex_unlock(&exp_lock);
    }
    return NULL;
}

static int mode_threads(const char *dir)
{
    open_nodes(dir);
    tfd = open(gpu_path, O_RDWR);
    CHECK(tfd >= 0, "open");
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    return fails ? 1 : 0;
}

static void *blocked(void *arg)
{
    (void)arg;
    struct nvos54 c;
    rm_control(&c, 0x5c0000ff, NULL);
    ioctl(tfd, RM_CONTROL, &c);   /* waits for the (slow) harness */
    return NULL;
}

static int mode_kill(const char *dir)
{
    open_nodes(dir);
    tfd = open(gpu_path, O_RDWR);
    pthread_t th;
    pthread_create(&th, NULL, blocked, NULL);
    struct timespec ts = { 0, 100 * 1000000L };
    nanosleep(&ts, NULL);
    kill(getpid(), SIGKILL);   /* dies with a notification pending */
    return 1;
}

static int mode_orphan(const char *dir)
{
    open_nodes(dir);
    int fd = open(gpu_path, O_RDWR);
    struct nvos54 c;
    rm_control(&c, 1, NULL);
    long rc = sys_ioctl(fd, RM_CONTROL, &c);
    CHECK(rc == -1 && errno == ENOSYS, "with the listener gone: %ld errno %d (want ENOSYS)", rc, errno);
    CHECK(getppid() > 0, "other syscalls run");
    int dn = open("/dev/null", O_RDONLY);
    int avail = 0;
    CHECK(ioctl(dn, FIONREAD, &avail) == -1 && errno != ENOSYS, "a non-GPU ioctl is untouched");
    return fails ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    exp_f = fopen(argv[3], "w");
    if (!exp_f)
        return 2;
    setvbuf(exp_f, NULL, _IOLBF, 0);
    const char *mode = argv[1], *dir = argv[2];
    int rc = 2;
    if (!strcmp(mode, "basic"))
        rc = mode_basic(dir, argc > 4 && !strcmp(argv[4], "trapall"));
    else if (!strcmp(mode, "deny"))
        rc = mode_deny(dir, 0);
    else if (!strcmp(mode, "audit"))
        rc = mode_deny(dir, 1);
    else if (!strcmp(mode, "threads"))
        rc = mode_threads(dir);
    else if (!strcmp(mode, "kill"))
        rc = mode_kill(dir);
    else if (!strcmp(mode, "orphan"))
        rc = mode_orphan(dir);
    fclose(exp_f);
    return rc;
}
