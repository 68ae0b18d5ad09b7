/* Fuzz target for the policy module (see tests/fuzz/README).
 *
 * Any input: parse it; when it parses, its normalised text must parse to
 * the same text (with and without origins), and evaluating calls must
 * not crash. The first line of the input is also tried as a command-line
 * option ("name=value"), and the input as a size and a duration.
 *
 * libFuzzer: clang -fsanitize=fuzzer,address,undefined ... fuzz_policy.c
 * Without clang: cc -DTD_FUZZ_STANDALONE -fsanitize=address,undefined ...
 * gives a main that mutates built-in seeds (and files given with -s)
 * from a fixed random seed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "policy/policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *write_policy(const struct td_policy *p, int flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        abort();
    if (td_policy_write_ex(p, f, flags) != 0)
        abort();
    fclose(f);
    return buf;
}

static void check_stable(const struct td_policy *p, int flags)
{
    char *w1 = write_policy(p, flags);
    struct td_policy *q;
    struct td_policy_error e;
    if (td_policy_parse(w1, strlen(w1), "norm", &q, &e) != 0) {
        fprintf(stderr, "normalised text does not parse: %d:%d: %s\n---\n%s---\n", e.line, e.col, e.msg, w1);
        abort();
    }
    char *w2 = write_policy(q, flags);
    if (strcmp(w1, w2) != 0) {
        fprintf(stderr, "normalised text not stable:\n%s---\n%s---\n", w1, w2);
        abort();
    }
    free(w1);
    free(w2);
    td_policy_free(q);
}

static void exercise(const struct td_policy *p, const uint8_t *data, size_t size)
{
    struct td_verdict v;
    for (int i = 0; i < 64; i++) {
        uint64_t r = 0;
        for (size_t k = 0; k < 8 && size; k++)
            r = r * 131 + data[(i * 8 + k) % size];
        struct td_call_ctx c = { (int)(r % (TD_FN__COUNT + 2)) - 1, r % 17, (int)(r % 5) - 1,
                                 (r >> 8) % 3 ? (1ULL << (r % 64)) : 0, (r >> 16) % 2 ? ~0ULL - r : r };
        td_policy_eval(p, &c, &v);
        if (v.action != TD_ACT_PASS && (!v.file || (v.applied != 0 && v.applied != 1)))
            abort();
    }
    int map[8];
    td_policy_device_map(p, (int)(size % 70), map, 8);
    td_policy_memory_limit(p, (int)(size % 66) - 1, NULL, NULL);
    struct td_emulate_cfg ec;
    td_policy_emulate(p, &ec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct td_policy *p;
    struct td_policy_error e;
    char msg[1024];
    if (td_policy_parse((const char *)data, size, "fuzz", &p, &e) == 0) {
        check_stable(p, 0);
        check_stable(p, TD_POLICY_WRITE_ORIGINS);
        exercise(p, data, size);
    } else {
        if (p || !e.msg[0])
            abort();
        td_policy_format_error(&e, msg, sizeof msg);
        p = td_policy_defaults();
    }

    /* the first line as --name=value */
    size_t n = 0;
    while (n < size && n < 512 && data[n] != '\n')
        n++;
    char line[520];
    memcpy(line, data, n);
    line[n] = 0;
    if (strlen(line) == n) {
        char *eq = strchr(line, '=');
        if (eq)
            *eq = 0;
        if (td_policy_apply_option(p, line, eq ? eq + 1 : NULL, &e) == 0) {
            check_stable(p, 0);
            check_stable(p, TD_POLICY_WRITE_ORIGINS);
            exercise(p, data, size);
        }
        unsigned long long v;
        const char *why;
        td_policy_parse_size(line, &v, &why);
        td_policy_parse_duration(line, &v, &why);
    }
    td_policy_free(p);
    return 0;
}

#ifdef TD_FUZZ_STANDALONE
#include <time.h>

static const char *const seeds[] = {
    "mode enforce\nbackend emulate\nemulate devices=2 profile=h100 memory=80GiB\n",
    "device 1 -> 0\ndevice 2 hide\ndevices 3\ndevice 4->5\n",
    "memory-limit 8G\nmemory-limit 1.5G device=1\n",
    "deny cuCtxEnablePeerAccess,%copy error=CUDA_ERROR_PEER_ACCESS_UNSUPPORTED\ndeny cuMemcpyPeer\n",
    "inject cuMemAlloc_v2 error=CUDA_ERROR_OUT_OF_MEMORY when=3+ delay=10ms\n"
    "inject cuLaunchKernel delay=1500us when=2..10+3\n",
    "trace !%memory,cuLaunchKernel,/^cuGraph,?cuX,all\n",
    "gpu-dev /dev/dri/renderD*\nioctl deny NV_ESC_RM_CONTROL errno=EACCES dev=/dev/nvidiactl\nioctl deny 0x2a\n",
    "#@ other.policy:42\ndeny cuInit\n# comment\n\n",
    "inject=cuMemAlloc_v2:error=CUDA_ERROR_OUT_OF_MEMORY:when=3+\n",
    "deny=%graph:error=2\n", "memory-limit=8G:device=1\n", "emulate=devices=2,profile=a100\n",
    "ioctl-deny=UVM_INITIALIZE:errno=EIO:dev=/dev/nvidia-uvm\n", "policy-mode=enforce\n",
};

static const char *const dict[] = {
    "mode", "audit", "enforce", "backend", "auto", "driver", "emulate", "devices=", "profile=",
    "memory=", "device", "hide", "->", "devices", "memory-limit", "device=", "deny", "inject",
    "error=", "when=", "delay=", "trace", "gpu-dev", "ioctl", "errno=", "dev=", "%memory", "%graph",
    "cuMemAlloc", "_v2", "_ptsz", "CUDA_ERROR_OUT_OF_MEMORY", "CUDA_SUCCESS", "EPERM", "..", "+",
    ",", "=", "#", "#@ ", ":", "\n", " ", "\t", "\r", "0", "1", "3", "18446744073709551615",
    "99999999999999999999", "G", "GiB", "T", ".5", "ms", "us", "ns", "s", "0x", "h100", "/dev/",
    "!", "/", "?", "(", "[", "\\", "inject=", "deny=", "memory-limit=", "backend=",
};

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t x = rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return rng_state = x;
}

#define MAXLEN 4096

static size_t mutate(char *buf, size_t len)
{
    int rounds = 1 + (int)(rnd() % 6);
    for (int r = 0; r < rounds; r++) {
        size_t pos = len ? rnd() % (len + 1) : 0;
        switch (rnd() % 8) {
        case 0: /* flip a bit */
            if (len)
                buf[rnd() % len] ^= (char)(1u << (rnd() % 8));
            break;
        case 1: /* random byte */
            if (len < MAXLEN) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = (char)rnd();
                len++;
            }
            break;
        case 2: /* delete a range */
            if (len) {
                size_t n = 1 + rnd() % 8;
                if (pos + n > len)
                    n = len - pos;
                memmove(buf + pos, buf + pos + n, len - pos - n);
                len -= n;
            }
            break;
        case 3: case 4: { /* dictionary word */
            const char *w = dict[rnd() % (sizeof dict / sizeof dict[0])];
            size_t n = strlen(w);
            if (len + n <= MAXLEN) {
                memmove(buf + pos + n, buf + pos, len - pos);
                memcpy(buf + pos, w, n);
                len += n;
            }
            break;
        }
        case 5: { /* splice a seed */
            const char *s = seeds[rnd() % (sizeof seeds / sizeof seeds[0])];
            size_t n = strlen(s);
            if (len + n <= MAXLEN) {
                memmove(buf + pos + n, buf + pos, len - pos);
                memcpy(buf + pos, s, n);
                len += n;
            }
            break;
        }
        case 6: /* duplicate a chunk */
            if (len) {
                size_t from = rnd() % len, n = 1 + rnd() % 32;
                if (from + n > len)
                    n = len - from;
                if (len + n <= MAXLEN) {
                    char tmp[32];
                    memcpy(tmp, buf + from, n);
                    memmove(buf + pos + n, buf + pos, len - pos);
                    memcpy(buf + pos, tmp, n);
                    len += n;
                }
            }
            break;
        default: /* a digit run */
            if (len < MAXLEN) {
                memmove(buf + pos + 1, buf + pos, len - pos);
                buf[pos] = (char)('0' + rnd() % 10);
                len++;
            }
            break;
        }
    }
    return len;
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
        else {
            /* replay a file (a crash reproducer) */
            FILE *f = fopen(argv[i], "rb");
            if (!f) {
                perror(argv[i]);
                return 2;
            }
            static uint8_t in[1 << 20];
            size_t n = fread(in, 1, sizeof in, f);
            fclose(f);
            LLVMFuzzerTestOneInput(in, n);
            printf("%s: ok\n", argv[i]);
            iters = 0;
        }
    }
    rng_state = seed * 0x9e3779b97f4a7c15ULL + 1;
    static char buf[MAXLEN + 1];
    time_t start = time(NULL);
    unsigned long long i;
    for (i = 0; i < iters; i++) {
        const char *s = seeds[rnd() % (sizeof seeds / sizeof seeds[0])];
        size_t len = strlen(s);
        memcpy(buf, s, len);
        len = mutate(buf, len);
        /* write the input first so a crash leaves its reproducer */
        if (getenv("FUZZ_LAST")) {
            FILE *f = fopen(getenv("FUZZ_LAST"), "wb");
            if (f) {
                fwrite(buf, 1, len, f);
                fclose(f);
            }
        }
        LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
        if (seconds > 0 && (i & 1023) == 0 && difftime(time(NULL), start) >= seconds)
            break;
    }
    printf("fuzz_policy: %llu inputs, seed %llu, no failure\n", i, seed);
    return 0;
}
#endif
