/* SPDX-License-Identifier: Apache-2.0 */
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
    "cudaMalloc", "cudaMemcpy_ptds", "cudaErrorNotPermitted", "cudaSuccess", "%runtime", "%library",
    "cublasSgemm_v2", "CUBLAS_STATUS_NOT_SUPPORTED", "ncclAllReduce", "ncclSystemError", "LIB.call", "LIB.",
};

#define FUZZ_NAME "fuzz_policy"
#include "standalone.h"
#endif
