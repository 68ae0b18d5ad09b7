/* SPDX-License-Identifier: Apache-2.0 */
// cuFFT over several GPUs (cufftXtSetGPUs, cufftXtMalloc, cufftXtMemcpy,
// cufftXtExecDescriptor*), built with NVIDIA's cufftXt.h and run with the
// host cuFFT in front on an emulated machine of 3 devices
// (TDTRACE_EMU_DEVICES=3, set before the first CUDA call).
//
// What is checked, as NVIDIA documents the distribution (docs/hostlib.md):
// one 2-D or 3-D transform in CUFFT_XT_FORMAT_INPLACE is in slabs of x and
// comes out in CUFFT_XT_FORMAT_INPLACE_SHUFFLED, slabs of y, the first
// (size % nGPUs) devices one slab more; real data in the in-place layout
// (the last dimension padded to 2 (n/2 + 1)); R2C from INPLACE, C2R from
// SHUFFLED; a batch is split in whole transforms, the first
// (batch % nGPUs) devices one more, natural order. Each piece is read back
// and compared with where the layout puts the elements; the results,
// copied back to the host (cufftXtMemcpy), with a straightforward DFT in
// double: R2C/D2Z against the DFT of the real input, C2R/Z2D on the DFT of
// a real array against n times that array (a check independent of R2C),
// C2C/Z2Z both ways, and round trips. Tolerance 1e-4 (float) and 1e-10
// (double) times 1 + the case's largest |reference|. Then bad input, each
// with the status docs/hostlib.md gives.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <cufftXt.h>
#include <vector>

typedef std::complex<double> cd;

static int checks, failures;

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); std::exit(1); } } while (0)
#define CF(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); std::exit(1); } } while (0)
#define EXPECT(x, want) do { int r_ = (int)(x); checks++; if (r_ != (int)(want)) { failures++; \
    std::printf("FAIL %s:%d: %s = %d, want %s (%d)\n", __FILE__, __LINE__, #x, r_, #want, (int)(want)); } } while (0)

static void fail(const char *what, const char *fmt, double a, double b)
{
    failures++;
    std::printf("FAIL %s: ", what);
    std::printf(fmt, a, b);
    std::printf("\n");
}

static void report(const char *name, int f0)
{
    std::printf("%s %s\n", failures == f0 ? "ok  " : "FAIL", name);
}

static double urand(void)
{
    static unsigned long long s = 88172645463325252ull;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return (double)(s >> 11) / 4503599627370496.0 - 1.0;
}

// the DFT of one transform of rank r, sizes n, row-major, unnormalised,
// e^(sign 2 pi i k.j / n) as cuFFT
static void dft(int r, const long long *n, const cd *in, cd *out, int sign)
{
    long long tot = 1;
    for (int d = 0; d < r; d++)
        tot *= n[d];
    for (long long k = 0; k < tot; k++) {
        cd acc = 0;
        for (long long j = 0; j < tot; j++) {
            double ph = 0;
            long long kk = k, jj = j;
            for (int d = r - 1; d >= 0; d--) {
                ph += (double)((kk % n[d]) * (jj % n[d])) / (double)n[d];
                kk /= n[d];
                jj /= n[d];
            }
            ph -= std::floor(ph);
            acc += in[j] * std::polar(1.0, sign * 2 * M_PI * ph);
        }
        out[k] = acc;
    }
}

// a transform's shape: rank, sizes, batch; the in-place layout's last
// dimension in scalars (real side: 2 (n/2 + 1); complex side: 2 (n/2 + 1)
// or 2n for C2C)
struct shape {
    int rank;
    long long n[3], batch;
    bool real;                 // R2C/C2R (else C2C)
    long long rows() const { long long t = 1; for (int d = 0; d < rank - 1; d++) t *= n[d]; return t; }
    long long last() const { return n[rank - 1]; }
    long long cl() const { return real ? last() / 2 + 1 : last(); }   // complex cells in a row
    long long per() const { return rows() * cl() * 2; }                 // scalars a transform takes
    long long tot() const { return rows() * last(); }                   // points of a transform
};

// the value at scalar index i of the in-place layout, as double
template <typename T> static std::vector<double> to_d(const std::vector<T> &v)
{
    return std::vector<double>(v.begin(), v.end());
}

// reference: the spectrum (in-place layout, complex side) of a real or
// complex input in the in-place layout
static std::vector<double> forward_ref(const shape &s, const std::vector<double> &in, int sign)
{
    std::vector<double> out(s.per() * s.batch, 0.0);
    std::vector<cd> a(s.tot()), b(s.tot());
    for (long long t = 0; t < s.batch; t++) {
        const double *x = &in[t * s.per()];
        for (long long r = 0; r < s.rows(); r++)
            for (long long c = 0; c < s.last(); c++)
                a[r * s.last() + c] = s.real ? cd(x[r * 2 * s.cl() + c], 0)
                                             : cd(x[(r * s.cl() + c) * 2], x[(r * s.cl() + c) * 2 + 1]);
        dft(s.rank, s.n, a.data(), b.data(), sign);
        double *y = &out[t * s.per()];
        for (long long r = 0; r < s.rows(); r++)
            for (long long c = 0; c < s.cl(); c++) {
                y[(r * s.cl() + c) * 2] = b[r * s.last() + c].real();
                y[(r * s.cl() + c) * 2 + 1] = b[r * s.last() + c].imag();
            }
    }
    return out;
}

// compares the meaningful scalars (a real side's padding is skipped)
static void compare(const char *what, const shape &s, bool real_side, const std::vector<double> &got,
                    const std::vector<double> &want, double tol)
{
    double mx = 0;
    for (double w : want)
        mx = std::fmax(mx, std::fabs(w));
    long long width = real_side ? s.last() : 2 * s.cl();
    for (long long t = 0; t < s.batch; t++)
        for (long long r = 0; r < s.rows(); r++)
            for (long long c = 0; c < width; c++) {
                long long i = t * s.per() + r * 2 * s.cl() + c;
                checks++;
                if (!(std::fabs(got[i] - want[i]) <= tol * (1 + mx))) {
                    char w[200];
                    std::snprintf(w, sizeof w, "%s [transform %lld, row %lld, scalar %lld]", what, t, r, c);
                    fail(w, "got %.9g, expected %.9g", got[i], want[i]);
                    return;
                }
            }
}

// a piece of a descriptor, read back
template <typename T> static std::vector<T> piece(const cudaLibXtDesc *d, int g)
{
    std::vector<T> h(d->descriptor->size[g] / sizeof(T));
    CK(cudaSetDevice(d->descriptor->GPUs[g]));
    CK(cudaMemcpy(h.data(), d->descriptor->data[g], h.size() * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

static void slab(long long len, int n, int g, long long *lo, long long *hi)
{
    long long q = len / n, r = len % n;
    *lo = g * q + (g < r ? g : r);
    *hi = *lo + q + (g < r ? 1 : 0);
}

// every piece of d against the natural array nat (in-place layout): x
// slabs (INPLACE, or a batch: whole transforms) or y slabs (SHUFFLED)
template <typename T>
static void check_pieces(const char *what, const shape &s, const cudaLibXtDesc *d, const std::vector<double> &nat,
                         double tol)
{
    int ng = d->descriptor->nGPUs;
    bool by_y = d->subFormat == CUFFT_XT_FORMAT_INPLACE_SHUFFLED && s.batch == 1 && s.rank >= 2;
    // cells of 2 scalars: x, y, rest
    long long X = s.batch > 1 ? s.batch : s.n[0];
    long long Y = s.batch > 1 ? 1 : s.rank == 1 ? 1 : s.rank == 2 ? s.cl() : s.n[1];
    long long R = s.batch > 1 ? s.per() / 2 : s.rank == 3 ? s.cl() : 1;
    for (int g = 0; g < ng; g++) {
        std::vector<T> p = piece<T>(d, g);
        long long lo, hi;
        slab(by_y ? Y : X, ng, g, &lo, &hi);
        long long k = 0;
        for (long long x = by_y ? 0 : lo; x < (by_y ? X : hi); x++)
            for (long long y = by_y ? lo : 0; y < (by_y ? hi : Y); y++)
                for (long long c = 0; c < 2 * R; c++, k++) {
                    double w = nat[(x * Y + y) * 2 * R + c];
                    checks++;
                    if ((size_t)k >= p.size() || !(std::fabs(p[k] - w) <= tol)) {
                        char m[200];
                        std::snprintf(m, sizeof m, "%s: device %d's piece, scalar %lld", what, g, k);
                        fail(m, "got %.9g, expected %.9g", (size_t)k < p.size() ? (double)p[k] : NAN, w);
                        return;
                    }
                }
    }
}

// a plan over nGPUs devices (0, 1, ...)
static cufftHandle mplan(int ng, const shape &s, cufftType type)
{
    cufftHandle h;
    int gpus[3] = { 0, 1, 2 };
    CF(cufftCreate(&h));
    CF(cufftXtSetGPUs(h, ng, gpus));
    size_t ws[3];
    int n[3] = { (int)s.n[0], (int)s.n[1], (int)s.n[2] };
    CF(cufftMakePlanMany(h, s.rank, n, NULL, 1, 0, NULL, 1, 0, type, (int)s.batch, ws));
    return h;
}

// R2C then C2R (D2Z, Z2D) of shape s over ng devices, in place or out
template <typename T> static void real_case(const char *name, int ng, shape s, bool inplace)
{
    const int f0 = failures;
    const bool dbl = sizeof(T) == 8;
    const double tol = dbl ? 1e-10 : 1e-4;
    s.real = true;
    cufftHandle f = mplan(ng, s, dbl ? CUFFT_D2Z : CUFFT_R2C), b = mplan(ng, s, dbl ? CUFFT_Z2D : CUFFT_C2R);
    // input: real, in the in-place layout (padding 0)
    std::vector<T> h(s.per() * s.batch, 0);
    for (long long t = 0; t < s.batch; t++)
        for (long long r = 0; r < s.rows(); r++)
            for (long long c = 0; c < s.last(); c++)
                h[t * s.per() + r * 2 * s.cl() + c] = (T)urand();
    std::vector<double> hin = to_d(h), want = forward_ref(s, hin, -1);
    cudaLibXtDesc *a, *o;
    CF(cufftXtMalloc(f, &a, CUFFT_XT_FORMAT_INPLACE));
    if (inplace)
        o = a;
    else
        CF(cufftXtMalloc(f, &o, CUFFT_XT_FORMAT_INPLACE));
    CF(cufftXtMemcpy(f, a, h.data(), CUFFT_COPY_HOST_TO_DEVICE));
    char what[160];
    std::snprintf(what, sizeof what, "%s: input pieces", name);
    check_pieces<T>(what, s, a, hin, 0);
    if (dbl)
        CF(cufftXtExecDescriptorD2Z(f, a, o));
    else
        CF(cufftXtExecDescriptorR2C(f, a, o));
    int outfmt = s.batch > 1 ? CUFFT_XT_FORMAT_INPLACE : CUFFT_XT_FORMAT_INPLACE_SHUFFLED;
    EXPECT(o->subFormat, outfmt);
    std::snprintf(what, sizeof what, "%s: spectrum pieces", name);
    check_pieces<T>(what, s, o, want, tol * 100);
    std::vector<T> back(h.size());
    CF(cufftXtMemcpy(f, back.data(), o, CUFFT_COPY_DEVICE_TO_HOST));
    std::snprintf(what, sizeof what, "%s: %s", name, dbl ? "D2Z" : "R2C");
    compare(what, s, false, to_d(back), want, tol);
    // C2R on the reference spectrum (rounded to T): n times the input
    std::vector<T> spec(want.begin(), want.end());
    cudaLibXtDesc *c = o;
    if (s.batch == 1) {
        // C2R takes shuffled input: a descriptor in that format, filled from the host
        CF(cufftXtMalloc(b, &c, CUFFT_XT_FORMAT_INPLACE_SHUFFLED));
        CF(cufftXtMemcpy(b, c, spec.data(), CUFFT_COPY_HOST_TO_DEVICE));
        std::snprintf(what, sizeof what, "%s: shuffled input pieces", name);
        check_pieces<T>(what, s, c, to_d(spec), 0);
    } else {
        CF(cufftXtMemcpy(b, c, spec.data(), CUFFT_COPY_HOST_TO_DEVICE));
    }
    cudaLibXtDesc *r = inplace ? c : a;
    if (dbl)
        CF(cufftXtExecDescriptorZ2D(b, c, r));
    else
        CF(cufftXtExecDescriptorC2R(b, c, r));
    EXPECT(r->subFormat, CUFFT_XT_FORMAT_INPLACE);
    CF(cufftXtMemcpy(b, back.data(), r, CUFFT_COPY_DEVICE_TO_HOST));
    std::vector<double> scaled(hin);
    for (double &v : scaled)
        v *= (double)s.tot();
    std::snprintf(what, sizeof what, "%s: %s", name, dbl ? "Z2D" : "C2R");
    compare(what, s, true, to_d(back), scaled, tol);
    // the round trip through the generic cufftXtExecDescriptor: the input again
    a->subFormat = CUFFT_XT_FORMAT_INPLACE; // the format the copy fills
    CF(cufftXtMemcpy(f, a, h.data(), CUFFT_COPY_HOST_TO_DEVICE));
    CF(cufftXtExecDescriptor(f, a, a, CUFFT_FORWARD));
    CF(cufftXtExecDescriptor(b, a, a, CUFFT_INVERSE));
    CF(cufftXtMemcpy(b, back.data(), a, CUFFT_COPY_DEVICE_TO_HOST));
    std::snprintf(what, sizeof what, "%s: round trip", name);
    compare(what, s, true, to_d(back), scaled, tol);
    if (c != o)
        CF(cufftXtFree(c));
    if (o != a)
        CF(cufftXtFree(o));
    CF(cufftXtFree(a));
    CF(cufftDestroy(f));
    CF(cufftDestroy(b));
    report(name, f0);
}

// C2C / Z2Z of shape s (a batch here) over ng devices, forward and inverse
template <typename T> static void complex_case(const char *name, int ng, shape s)
{
    const int f0 = failures;
    const bool dbl = sizeof(T) == 8;
    const double tol = dbl ? 1e-10 : 1e-4;
    s.real = false;
    cufftHandle p = mplan(ng, s, dbl ? CUFFT_Z2Z : CUFFT_C2C);
    std::vector<T> h(s.per() * s.batch);
    for (T &v : h)
        v = (T)urand();
    std::vector<double> hin = to_d(h);
    cudaLibXtDesc *a;
    CF(cufftXtMalloc(p, &a, CUFFT_XT_FORMAT_INPLACE));
    CF(cufftXtMemcpy(p, a, h.data(), CUFFT_COPY_HOST_TO_DEVICE));
    char what[160];
    std::snprintf(what, sizeof what, "%s: input pieces", name);
    check_pieces<T>(what, s, a, hin, 0);
    for (int sign = -1; sign <= 1; sign += 2) {
        CF(cufftXtMemcpy(p, a, h.data(), CUFFT_COPY_HOST_TO_DEVICE));
        if (dbl)
            CF(cufftXtExecDescriptorZ2Z(p, a, a, sign));
        else
            CF(cufftXtExecDescriptorC2C(p, (cudaLibXtDesc *)a, a, sign));
        EXPECT(a->subFormat, s.batch > 1 || s.rank == 1 ? CUFFT_XT_FORMAT_INPLACE : CUFFT_XT_FORMAT_INPLACE_SHUFFLED);
        std::vector<double> want = forward_ref(s, hin, sign);
        std::snprintf(what, sizeof what, "%s: %s pieces", name, sign < 0 ? "forward" : "inverse");
        check_pieces<T>(what, s, a, want, tol * 100);
        std::vector<T> back(h.size());
        CF(cufftXtMemcpy(p, back.data(), a, CUFFT_COPY_DEVICE_TO_HOST));
        std::snprintf(what, sizeof what, "%s: %s", name, sign < 0 ? "forward" : "inverse");
        compare(what, s, false, to_d(back), want, tol);
        a->subFormat = CUFFT_XT_FORMAT_INPLACE;
    }
    CF(cufftXtFree(a));
    CF(cufftDestroy(p));
    report(name, f0);
}

static void bad_input(void)
{
    const int f0 = failures;
    int gpus[3] = { 0, 1, 2 };
    size_t ws[3];
    cufftHandle r2c, c2r, c2c, h;
    shape s = { 2, { 6, 8, 1 }, 1, true };
    r2c = mplan(3, s, CUFFT_R2C);
    c2r = mplan(3, s, CUFFT_C2R);
    s.real = false;
    c2c = mplan(3, s, CUFFT_C2C);
    cudaLibXtDesc *in, *sh, *cc;
    CF(cufftXtMalloc(r2c, &in, CUFFT_XT_FORMAT_INPLACE));
    CF(cufftXtMalloc(r2c, &sh, CUFFT_XT_FORMAT_INPLACE_SHUFFLED));
    CF(cufftXtMalloc(c2c, &cc, CUFFT_XT_FORMAT_INPLACE));
    // R2C from shuffled input, C2R from natural order: not taken
    EXPECT(cufftXtExecDescriptorR2C(r2c, sh, sh), CUFFT_NOT_SUPPORTED);
    EXPECT(cufftXtExecDescriptorC2R(c2r, in, in), CUFFT_NOT_SUPPORTED);
    // a plan of another type or precision
    EXPECT(cufftXtExecDescriptorD2Z(r2c, in, in), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtExecDescriptorC2C(r2c, in, in, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtExecDescriptorR2C(c2c, cc, cc), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtExecDescriptorZ2D(c2r, sh, sh), CUFFT_INVALID_VALUE);
    // NULL descriptors; a descriptor of another plan's shape (pieces too small)
    EXPECT(cufftXtExecDescriptorR2C(r2c, NULL, in), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtExecDescriptorR2C(r2c, in, NULL), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtMemcpy(r2c, in, NULL, CUFFT_COPY_HOST_TO_DEVICE), CUFFT_INVALID_VALUE);
    shape small = { 2, { 3, 4, 1 }, 1, true };
    h = mplan(3, small, CUFFT_R2C);
    cudaLibXtDesc *tiny;
    CF(cufftXtMalloc(h, &tiny, CUFFT_XT_FORMAT_INPLACE));
    EXPECT(cufftXtExecDescriptorR2C(r2c, tiny, tiny), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtMemcpy(r2c, tiny, in, CUFFT_COPY_DEVICE_TO_DEVICE), CUFFT_INVALID_VALUE);
    CF(cufftXtFree(tiny));
    CF(cufftDestroy(h));
    // an output descriptor whose piece holds its present format (INPLACE:
    // 2 rows of 8) but not the one the transform leaves (SHUFFLED: 3
    // columns of 6), though its size says so
    {
        cudaLibXtDesc forged = *cc;
        cudaXtDesc pieces = *cc->descriptor;
        void *small_piece;
        CK(cudaSetDevice(pieces.GPUs[0]));
        CK(cudaMalloc(&small_piece, 2 * 8 * sizeof(cufftComplex)));
        pieces.data[0] = small_piece;
        pieces.size[0] = 3 * 6 * sizeof(cufftComplex);
        forged.descriptor = &pieces;
        EXPECT(cufftXtExecDescriptorC2C(c2c, cc, &forged, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
        CK(cudaFree(small_piece));
    }
    // a plan on one device has no descriptors
    CF(cufftPlan2d(&h, 6, 8, CUFFT_R2C));
    cudaLibXtDesc *none = NULL;
    EXPECT(cufftXtMalloc(h, &none, CUFFT_XT_FORMAT_INPLACE), CUFFT_INVALID_PLAN);
    EXPECT(cufftXtExecDescriptorR2C(h, in, in), CUFFT_INVALID_PLAN);
    CF(cufftDestroy(h));
    // sizes: fewer complex columns (8 x 2: 2) than devices, a batch smaller
    // than the devices, one 1-D real transform
    shape narrow = { 2, { 8, 2, 1 }, 1, true };
    h = mplan(3, narrow, CUFFT_R2C);
    EXPECT(cufftXtMalloc(h, &none, CUFFT_XT_FORMAT_INPLACE), CUFFT_INVALID_SIZE);
    CF(cufftDestroy(h));
    shape few = { 1, { 16, 1, 1 }, 2, true };
    h = mplan(3, few, CUFFT_R2C);
    EXPECT(cufftXtMalloc(h, &none, CUFFT_XT_FORMAT_INPLACE), CUFFT_INVALID_SIZE);
    CF(cufftDestroy(h));
    shape one = { 1, { 16, 1, 1 }, 1, true };
    h = mplan(3, one, CUFFT_D2Z);
    EXPECT(cufftXtMalloc(h, &none, CUFFT_XT_FORMAT_INPLACE), CUFFT_NOT_SUPPORTED);
    CF(cufftDestroy(h));
    // an advanced layout over several GPUs
    CF(cufftCreate(&h));
    CF(cufftXtSetGPUs(h, 2, gpus));
    int n[1] = { 16 }, emb[1] = { 16 };
    CF(cufftMakePlanMany(h, 1, n, emb, 2, 32, emb, 1, 16, CUFFT_C2C, 4, ws));
    EXPECT(cufftXtMalloc(h, &none, CUFFT_XT_FORMAT_INPLACE), CUFFT_NOT_SUPPORTED);
    CF(cufftDestroy(h));
    CF(cufftXtFree(in));
    CF(cufftXtFree(sh));
    CF(cufftXtFree(cc));
    CF(cufftDestroy(r2c));
    CF(cufftDestroy(c2r));
    CF(cufftDestroy(c2c));
    report("bad input", f0);
}

int main(void)
{
    setenv("TDTRACE_EMU_DEVICES", "3", 1); // read by the emulator's cuInit
    int nd = 0;
    if (cudaGetDeviceCount(&nd) != cudaSuccess || nd < 3) {
        std::printf("fftmgpu: %d devices; the emulated machine was to have 3\n", nd);
        return 1;
    }
    // one transform: x and y slabs of 3, 2, 2 and 2, 2, 2 (complex columns 6)
    real_case<float>("R2C/C2R 2-D 7 x 10 over 3 GPUs, in place", 3, shape{ 2, { 7, 10, 1 }, 1, true }, true);
    real_case<float>("R2C/C2R 2-D 5 x 9 over 2 GPUs, out of place", 2, shape{ 2, { 5, 9, 1 }, 1, true }, false);
    real_case<double>("D2Z/Z2D 3-D 5 x 4 x 6 over 3 GPUs, in place", 3, shape{ 3, { 5, 4, 6 }, 1, true }, true);
    real_case<double>("D2Z/Z2D 3-D 4 x 3 x 7 over 3 GPUs, out of place", 3, shape{ 3, { 4, 3, 7 }, 1, true }, false);
    // batches: 5 transforms as 2, 2, 1
    real_case<float>("R2C/C2R 1-D 12, batch 5 over 3 GPUs", 3, shape{ 1, { 12, 1, 1 }, 5, true }, true);
    real_case<double>("D2Z/Z2D 2-D 4 x 5, batch 4 over 3 GPUs, out of place", 3, shape{ 2, { 4, 5, 1 }, 4, true },
                      false);
    complex_case<float>("C2C 1-D 10, batch 7 over 3 GPUs", 3, shape{ 1, { 10, 1, 1 }, 7, false });
    complex_case<double>("Z2Z 2-D 4 x 6, batch 4 over 3 GPUs", 3, shape{ 2, { 4, 6, 1 }, 4, false });
    complex_case<float>("C2C 3-D 3 x 4 x 5 over 3 GPUs", 3, shape{ 3, { 3, 4, 5 }, 1, false });
    bad_input();
    std::printf("fftmgpu: %s: %d checks, %d failed\n", failures ? "FAIL" : "PASS", checks, failures);
    return failures ? 1 : 0;
}
