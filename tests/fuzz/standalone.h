/* SPDX-License-Identifier: Apache-2.0 */
/* The standalone fuzz driver shared by tests/fuzz/fuzz_*.c (built with
 * -DTD_FUZZ_STANDALONE, so gcc alone can fuzz): it mutates the includer's
 * seeds with its dictionary from a fixed random seed and feeds each input
 * to LLVMFuzzerTestOneInput. The includer defines FUZZ_NAME, seeds[] and
 * dict[] before including this file, and FUZZ_SEED_LEN(k) when its seeds
 * are binary (not NUL-terminated text); see tests/fuzz/README. */
#ifndef FUZZ_SEED_LEN
#define FUZZ_SEED_LEN(k) strlen(seeds[k])
#endif
#define NSEEDS (sizeof seeds / sizeof seeds[0])
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
            size_t k = rnd() % NSEEDS;
            const char *s = seeds[k];
            size_t n = FUZZ_SEED_LEN(k);
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
        size_t k = rnd() % NSEEDS;
        const char *s = seeds[k];
        size_t len = FUZZ_SEED_LEN(k);
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
    printf("%s: %llu inputs, seed %llu, no failure\n", FUZZ_NAME, i, seed);
    return 0;
}
