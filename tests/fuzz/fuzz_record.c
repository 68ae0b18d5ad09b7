/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target for the record path (see tests/fuzz/README): everything
 * tdtrace does with bytes a traced program wrote.
 *
 * The input is used twice: as one record (td_rec_check, then, as tdtrace
 * does, td_ledger_check, the ledger, the names and the summary when it
 * passes; the decoder
 * prints it in text and JSON whether it passes or not), and as the
 * contents of a ring, head included, read the way tdtrace reads a live
 * and then a dead process's ring. Any crash, sanitizer report, hang or
 * record longer than the reader's buffer is a bug.
 *
 * libFuzzer: clang -fsanitize=fuzzer,address,undefined ... fuzz_record.c
 * Without clang: cc -DTD_FUZZ_STANDALONE gives a main that builds
 * well-formed records of random entry points and breaks them (negative
 * and huge device indices, ids and counts, lengths past the record, torn
 * words) from a fixed random seed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api.h"
#include "print.h"
#include "pystack.h"
#include "fold.h"
#include "ledger.h"
#include "names.h"
#include "ring.h"
#include "summary.h"
#include "tdtrace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static FILE *sink;
static struct td_ring ring;
static struct td_opts opts;
static unsigned long long pyseen; /* records whose Python frames passed the checks */

static void setup(void)
{
    if (sink)
        return;
    sink = fopen("/dev/null", "w");
    if (!sink || td_ring_create(&ring, 65536, 0) < 0)
        abort();
    opts.strsize = 64;
    opts.pyframes = 1; /* the summary's Python lines too */
    td_summary_init(&opts);
    td_fold_init(NULL, 0);
}

static void one_record(struct td_rec *rec, uint32_t len)
{
    char why[200];
    struct tp p;
    int ok = td_rec_check(rec, len, 77, why, sizeof(why)) == 0 &&
             (TD_REC_TYPE(rec->word) != TD_REC_CALL || td_ledger_check(rec, len, why, sizeof(why)) == 0);
    if (ok && TD_REC_TYPE(rec->word) == TD_REC_CALL) {
        td_ledger_call(rec, len);
        td_names_call(rec, len);
        td_summary_call(rec, len);
        td_summary_launch(rec, len);
    }
    if (ok && TD_REC_TYPE(rec->word) == TD_REC_EVENT && rec->fn == TD_EV_KERNEL)
        td_summary_kernel_ran(rec, len);
    if (len < sizeof(*rec))
        return;
    struct td_pyview pv;
    int py = ok && TD_REC_TYPE(rec->word) == TD_REC_CALL && td_rec_py(rec, len, &pv, why, sizeof(why)) == 1;
    pyseen += py;
    for (int fmt = 0; fmt < 2; fmt++) {
        tp_init(&p, fmt ? TP_JSON : TP_TEXT, sink);
        p.strsize = fmt ? -1 : 32;
        struct td_dec d = { 77, 1, 0, 1, !fmt, 1, !fmt && (len & 8) };
        td_print_call(&p, rec, len, &d);
        if (py && fmt)
            td_py_json(&p, &pv);
        else if (py)
            td_py_brief(&p, &pv);
        tp_line_end(&p);
        for (unsigned i = 0; py && !fmt && i < pv.n; i++)
            td_py_frame(&p, &pv, i);
        tp_free(&p);
    }
    if (ok && TD_REC_TYPE(rec->word) == TD_REC_CALL) {
        td_ledger_after(rec, len);
        td_names_after(rec, len);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    setup();
    static _Alignas(8) unsigned char buf[TD_RING_MAXREC];
    /* as one record */
    uint32_t len = (uint32_t)(size < sizeof(buf) ? size : sizeof(buf));
    memset(buf, 0, sizeof(buf));
    memcpy(buf, data, len);
    one_record((struct td_rec *)buf, len);

    /* as a ring's contents: the first 8 bytes are head's distance from
     * the reader, the rest lands at the read position */
    uint64_t off = 0;
    if (size >= 8)
        memcpy(&off, data, 8);
    memset(ring.data, 0, ring.size);
    uint64_t t = ring.rtail, pos = t & ring.mask;
    size_t body = size > 8 ? size - 8 : 0;
    for (size_t i = 0; i < body && i < ring.size; i++)
        ring.data[(pos + i) & ring.mask] = data[8 + i];
    __atomic_store_n(&ring.hdr->head, t + (off & 0x1ffff), __ATOMIC_RELEASE);
    struct td_ring_loss loss = { 0, 0, 0 };
    for (int final = 0; final < 2; final++) {
        for (int guard = 0;; guard++) {
            if (guard > 100000)
                abort(); /* the reader must settle */
            int n = td_ring_read(&ring, buf, final, &loss);
            if (n > (int)sizeof(buf))
                abort();
            if (n > 0)
                one_record((struct td_rec *)buf, (uint32_t)n);
            else if (n == 0 && (final || !ring.stall_tid))
                break;
            else if (n == 0)
                td_ring_skip(&ring, &loss);
        }
    }
    /* leave the ring empty and in step for the next input */
    uint64_t h = __atomic_load_n(&ring.hdr->head, __ATOMIC_ACQUIRE);
    ring.rtail = h;
    __atomic_store_n(&ring.hdr->tail, h, __ATOMIC_RELEASE);
    return 0;
}

#ifdef TD_FUZZ_STANDALONE
static uint64_t rng;

static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* a hostile value: 0, small, negative, huge, or random */
static uint64_t hostile(void)
{
    static const uint64_t v[] = { 0, 1, 7, 8, 15, 16, 63, 64, 255, 256, 4096, 65535, 65536,
                                  0x7fffffff, 0x80000000, 0xffffffff, (uint64_t)-1, (uint64_t)-2,
                                  (uint64_t)(int64_t)-0x20000000, 1ULL << 30, 1ULL << 63 };
    return rnd() % 3 ? v[rnd() % (sizeof(v) / sizeof(v[0]))] : rnd();
}

/* a well-formed call record of a random entry point, with items */
static size_t make_record(unsigned char *b, size_t cap)
{
    memset(b, 0, cap);
    struct td_rec *r = (struct td_rec *)b;
    /* half the time an entry point the summary acts on, so sequences
     * (a context on a device, then an allocation in it) happen */
    static const char *const busy[] = { "cuCtxCreate_v2", "cuCtxCreate_v4", "cuDevicePrimaryCtxRetain",
                                        "cuCtxSetCurrent", "cuCtxPushCurrent_v2", "cuMemAlloc_v2",
                                        "cuMemAllocPitch_v2", "cuMemFree_v2", "cuMemAllocHost_v2",
                                        "cuMemFreeHost", "cuMemcpy2D_v2", "cuLaunchKernel", "cuLaunchKernelEx",
                                        "cuMemCreate", "cuArrayCreate_v2", "cuGraphAddMemAllocNode",
                                        "cuStreamBatchMemOp", "cuModuleLoadDataEx", "cuGraphAddNode_v2",
                                        "cuMemSetAccess", "cuStreamDestroy_v2", "cuModuleGetFunction" };
    int id = rnd() % 2 ? td_api_find(busy[rnd() % (sizeof(busy) / sizeof(busy[0]))]) : -1;
    unsigned fn = id >= 0 ? (unsigned)id : (unsigned)(rnd() % TD_FN__COUNT);
    r->pid = 77;
    r->tid = (uint32_t)(rnd() % 3);
    r->fn = (uint16_t)fn;
    r->nargs = td_fns[fn].nparams;
    r->result = rnd() % 4 ? 0 : (int32_t)rnd();
    size_t off = sizeof(*r);
    for (unsigned i = 0; i < r->nargs; i++, off += 8) {
        uint64_t a = hostile();
        memcpy(b + off, &a, 8);
    }
    unsigned items = (unsigned)(rnd() % 4);
    for (unsigned i = 0; i < items; i++) {
        struct td_item it = { (uint8_t)(r->nargs ? rnd() % r->nargs : 0), (uint8_t)(1 + rnd() % 8), 0, 0 };
        it.len = (uint16_t)(rnd() % 3 ? rnd() % 24 : rnd() % 600);
        if (i == 0 && rnd() % 2) /* an out-value for argument 0: the usual shape */
            it.arg = 0, it.kind = TD_IT_OUT, it.len = 8;
        if (it.kind == TD_IT_STACK)
            it.arg = 0, it.len = (uint16_t)(it.len & ~7u);
        if (it.kind == TD_IT_MEM && it.len < 8)
            it.len = 8;
        if (it.kind == TD_IT_KPARAMS && td_fns[fn].kparams >= 0)
            it.arg = (uint8_t)td_fns[fn].kparams;
        unsigned pyn = (unsigned)(1 + rnd() % TD_PY_FRAMES_MAX);
        if (it.kind == TD_IT_PYFRAMES) /* room for the frames and some strings */
            it.arg = 0, it.len = (uint16_t)(sizeof(struct td_pyitem) + pyn * sizeof(struct td_pyrecframe) + rnd() % 40);
        size_t need = sizeof(it) + ((it.len + 7u) & ~7u);
        if (off + need > cap)
            break;
        memcpy(b + off, &it, sizeof(it));
        for (unsigned k = 0; k < it.len; k++)
            b[off + sizeof(it) + k] = (unsigned char)(rnd() % 5 ? 'a' + rnd() % 26 : rnd());
        if (it.kind == TD_IT_OUT && it.len == 8) {
            uint64_t v = rnd() % 4; /* a handful of handles and pointers, so they meet */
            memcpy(b + off + sizeof(it), &v, 8);
        }
        if (it.kind == TD_IT_MEM && r->nargs) { /* the memory an argument points to, so they meet */
            uint64_t v;
            memcpy(&v, b + sizeof(*r) + (size_t)it.arg * 8, 8);
            if (rnd() % 4)
                memcpy(b + off + sizeof(it), &v, 8);
            for (unsigned k = 8; k + 8 <= it.len; k += 8) /* small numbers: counts, tags, lengths */
                if (rnd() % 2) {
                    uint64_t w = rnd() % 2 ? rnd() % 12 : hostile();
                    memcpy(b + off + sizeof(it) + k, &w, 8);
                }
        }
        if (it.kind == TD_IT_PYFRAMES && rnd() % 4) { /* well formed, mostly: short strings, offsets that meet them */
            size_t fb = pyn * sizeof(struct td_pyrecframe);
            struct td_pyitem h = { (uint16_t)pyn, 0, (uint8_t)(rnd() % 2), (uint32_t)(it.len - sizeof(h) - fb) };
            unsigned char *q = b + off + sizeof(it);
            memcpy(q, &h, sizeof(h));
            for (unsigned k = 0; k < pyn; k++) {
                struct td_pyrecframe f = { (uint32_t)(rnd() % (h.nstr + 1)), (uint32_t)(rnd() % (h.nstr + 1)),
                                           (int32_t)(rnd() % 100) - 1, (uint16_t)k, (uint16_t)(rnd() % 8) };
                memcpy(q + sizeof(h) + k * sizeof(f), &f, sizeof(f));
            }
            for (unsigned k = 0; k < h.nstr; k++)
                if (rnd() % 6 == 0)
                    q[sizeof(h) + fb + k] = 0;
        }
        if (it.kind == TD_IT_KPARAMS && it.len >= sizeof(struct td_kparams) && rnd() % 2) {
            struct td_kparams h = { (uint16_t)(rnd() % 5), 0, 0 };
            size_t table = ((size_t)h.n * 4 + 7) & ~(size_t)7;
            h.bytes = it.len >= sizeof(h) + table ? (uint32_t)(it.len - sizeof(h) - table) : 0;
            memcpy(b + off + sizeof(it), &h, sizeof(h));
        }
        off += need;
        r->nitems++;
    }
    unsigned type = rnd() % 8 ? TD_REC_CALL : rnd() % 2 ? TD_REC_HELLO : TD_REC_EVENT;
    if (type == TD_REC_EVENT)
        r->fn = (uint16_t)(1 + rnd() % 2), r->nargs = 0;
    r->word = TD_REC_WORD(off, TD_ST_COMMITTED, type, r->tid);
    return off;
}

/* break it the ways a hostile program would */
static void mutate(unsigned char *b, size_t *len, size_t cap)
{
    struct td_rec *r = (struct td_rec *)b;
    int rounds = (int)(rnd() % 4);
    for (int i = 0; i < rounds; i++) {
        switch (rnd() % 9) {
        case 0: r->fn = (uint16_t)hostile(); break;
        case 1: r->nargs = (uint8_t)hostile(); break;
        case 2: r->nitems = (uint8_t)hostile(); break;
        case 3: r->pid = (uint32_t)hostile(); break;
        case 4: r->verdict = (uint8_t)hostile(); r->applied = (uint8_t)rnd(); break;
        case 5: /* the word: torn, wrong length or state */
            r->word = TD_REC_WORD(hostile(), rnd() % 4, rnd() % 5, rnd());
            break;
        case 6: /* an item's length past the record */
            if (*len >= sizeof(*r) + 16) {
                size_t at = sizeof(*r) + (rnd() % ((*len - sizeof(*r)) / 8)) * 8;
                uint64_t v = hostile();
                memcpy(b + at, &v, 8);
            }
            break;
        case 7: /* cut or grow */
            *len = (size_t)(rnd() % cap);
            break;
        default:
            if (*len)
                b[rnd() % *len] ^= (unsigned char)(1u << (rnd() % 8));
            break;
        }
    }
}

int main(int argc, char **argv)
{
    unsigned long long iters = 100000, seed = 1;
    double seconds = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc)
            iters = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-s") == 0 && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            seconds = strtod(argv[++i], NULL);
        else { /* replay a file */
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 2;
            }
            static uint8_t in[1 << 17];
            size_t n = fread(in, 1, sizeof(in), f);
            fclose(f);
            LLVMFuzzerTestOneInput(in, n);
            printf("%s: ok\n", argv[i]);
            iters = 0;
        }
    }
    rng = seed * 0x9e3779b97f4a7c15ULL + 1;
    static _Alignas(8) unsigned char in[8 + 3 * TD_RING_MAXREC];
    time_t start = time(NULL);
    unsigned long long i;
    for (i = 0; i < iters; i++) {
        /* head distance, then one to three records back to back */
        size_t len = 8;
        int nrec = 1 + (int)(rnd() % 3);
        for (int k = 0; k < nrec; k++) {
            size_t n = make_record(in + len, TD_RING_MAXREC);
            mutate(in + len, &n, TD_RING_MAXREC);
            len += (n + 7) & ~(size_t)7;
        }
        uint64_t head = rnd() % 8 ? len - 8 : hostile();
        memcpy(in, &head, 8);
        if (getenv("FUZZ_LAST")) {
            FILE *f = fopen(getenv("FUZZ_LAST"), "wb");
            if (f) {
                fwrite(in, 1, len, f);
                fclose(f);
            }
        }
        LLVMFuzzerTestOneInput(in + 8, len - 8); /* one record */
        LLVMFuzzerTestOneInput(in, len);         /* a ring */
        if (seconds > 0 && (i & 1023) == 0 && difftime(time(NULL), start) >= seconds)
            break;
    }
    printf("fuzz_record: %llu inputs (%llu with Python frames that passed), seed %llu, no failure\n", i, pyseen,
           seed);
    return 0;
}
#endif
