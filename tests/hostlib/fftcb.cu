/* SPDX-License-Identifier: Apache-2.0 */
// cuFFT's LTO callbacks (cufftXtSetJITCallback), built with NVIDIA's headers
// and run with the host cuFFT in front: the callbacks (fftcb_cb.cu, LTO-IR
// in a fatbinary: argv[1]) run on the emulated GPU around the FFT.
//
// Each case sets a load and/or store callback before the plan is made and
// checks every output element against a host computation: the callbacks
// applied by hand (load: element times a factor plus a second array at the
// element's offset in memory; store: only offsets not a multiple of 3,
// times a factor plus the offset) around a straightforward DFT in double.
// Tolerance: 1e-4 (float) and 1e-10 (double) times 1 + the case's largest
// |reference|. Unwritten outputs must keep what was there. C2C 1-D and 2-D
// batched, in and out of place, an advanced layout with strides and
// distances, R2C (2-D in place: the padded layout's offsets), C2R, Z2Z,
// D2Z (a callback of C++ linkage by its mangled name), Z2D, shared memory,
// a graph captured and launched twice; bad input with cuFFT's statuses,
// cufftXtClearCallback and the legacy cufftXtSetCallback returning
// CUFFT_NOT_IMPLEMENTED as NVIDIA's shared library does. Without the
// callbacks applied the checks fail (one case checks the difference is far
// above the tolerance).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cufftXt.h>
#include <cuda_runtime.h>
#include <vector>

#include "fftcb_info.h"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s = %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e_)); std::exit(1); } } while (0)
#define CF(x) do { cufftResult r_ = (x); if (r_ != CUFFT_SUCCESS) { \
    std::printf("%s:%d: %s = %d\n", __FILE__, __LINE__, #x, (int)r_); std::exit(1); } } while (0)
#define EXPECT(x, want) do { int r_ = (int)(x); if (r_ != (int)(want)) { \
    std::printf("%s:%d: %s = %d, want %s (%d)\n", __FILE__, __LINE__, #x, r_, #want, (int)(want)); std::exit(1); } } while (0)

static std::vector<char> fatbin;
static int checks;

struct cbcase {
    const char *name;
    cufftType type;
    int rank;
    long long n[3];
    long long batch;
    int advanced;                  // the layout below, else the basic one
    long long inembed[3], istride, idist, onembed[3], ostride, odist;
    int inplace;
    const char *load, *store;      // symbol names, or NULL
    int dir;                       // C2C, Z2Z
    unsigned shared;               // store's shared memory
};

static bool is_dbl(cufftType t) { return t == CUFFT_Z2Z || t == CUFFT_D2Z || t == CUFFT_Z2D; }
static bool in_cplx(cufftType t) { return t != CUFFT_R2C && t != CUFFT_D2Z; }
static bool out_cplx(cufftType t) { return t != CUFFT_C2R && t != CUFFT_Z2D; }

struct side { long long n[3], embed[3], stride, dist; };

// one side's layout as cuFFT documents it (basic: packed, in place the real
// side padded to 2 (n/2 + 1) in the last dimension)
static side layout(const cbcase &c, bool input)
{
    side s;
    bool cplx = input ? in_cplx(c.type) : out_cplx(c.type);
    bool r2c_like = c.type != CUFFT_C2C && c.type != CUFFT_Z2Z;
    for (int d = 0; d < 3; d++) s.n[d] = s.embed[d] = d < c.rank ? c.n[d] : 1;
    if (r2c_like && cplx) s.n[c.rank - 1] = c.n[c.rank - 1] / 2 + 1;
    if (c.advanced) {
        for (int d = 0; d < c.rank; d++) s.embed[d] = input ? c.inembed[d] : c.onembed[d];
        s.stride = input ? c.istride : c.ostride;
        s.dist = input ? c.idist : c.odist;
        return s;
    }
    for (int d = 0; d < c.rank; d++) s.embed[d] = s.n[d];
    if (r2c_like && c.inplace && !cplx) s.embed[c.rank - 1] = 2 * (c.n[c.rank - 1] / 2 + 1);
    s.stride = 1;
    s.dist = 1;
    for (int d = 0; d < c.rank; d++) s.dist *= s.embed[d];
    return s;
}

static long long count(const side &s) { return s.n[0] * s.n[1] * s.n[2]; }
// element i (batch first, last dimension fastest) at this offset
static long long offset(const cbcase &c, const side &s, long long i, long long idx[3], long long *b)
{
    long long r = i, off = 0;
    for (int d = c.rank - 1; d >= 0; d--) { idx[d] = r % s.n[d]; r /= s.n[d]; }
    *b = r;
    for (int d = 0; d < c.rank; d++) {
        long long m = s.stride;
        for (int j = d + 1; j < c.rank; j++) m *= s.embed[j];
        off += idx[d] * m;
    }
    return off + r * s.dist;
}
static long long span(const cbcase &c, const side &s)
{
    long long idx[3], b, last = 0;
    for (long long i = 0; i < count(s) * c.batch; i++)
        last = std::max(last, offset(c, s, i, idx, &b));
    return last + 1;
}

static double val(long long k, int part) { return std::sin(0.37 * (double)k + 1.3 * part) + 0.25 * part; }

// runs one case; returns the largest error over (1 + max |reference|)
static double run_case(const cbcase &c, cudaStream_t s, bool apply_callbacks_in_reference = true,
                       bool graph = false, bool destroy_early = false)
{
    bool dbl = is_dbl(c.type), icx = in_cplx(c.type), ocx = out_cplx(c.type);
    side is = layout(c, true), os = layout(c, false);
    long long ispan = span(c, is), ospan = span(c, os);
    int icomp = icx ? 2 : 1, ocomp = ocx ? 2 : 1;
    size_t scal = dbl ? 8 : 4;
    long long ibytes = ispan * icomp * (long long)scal, obytes = ospan * ocomp * (long long)scal;
    long long bytes = c.inplace ? std::max(ibytes, obytes) : ibytes;
    // input (every scalar of the span, gaps too), the load's second array
    std::vector<double> in(bytes / scal), add(ispan * icomp), out0(obytes / scal);
    for (size_t k = 0; k < in.size(); k++) in[k] = val((long long)k, 0);
    for (size_t k = 0; k < add.size(); k++) add[k] = 0.5 * val((long long)k, 1);
    for (size_t k = 0; k < out0.size(); k++) out0[k] = 1000.0 + (double)k;   // what must stay
    auto up = [&](const std::vector<double> &h, void *d) {
        if (dbl) { CK(cudaMemcpy(d, h.data(), h.size() * 8, cudaMemcpyHostToDevice)); return; }
        std::vector<float> f(h.begin(), h.end());
        CK(cudaMemcpy(d, f.data(), f.size() * 4, cudaMemcpyHostToDevice));
    };
    void *din, *dout, *dadd;
    CK(cudaMalloc(&din, bytes));
    CK(cudaMalloc(&dadd, add.size() * scal));
    dout = din;
    if (!c.inplace) CK(cudaMalloc(&dout, obytes));
    up(add, dadd);
    cb_info hi = { 1.75f, -0.5f, dbl ? NULL : (const float *)dadd, dbl ? (const double *)dadd : NULL, c.shared };
    cb_info *dinfo;
    CK(cudaMalloc(&dinfo, sizeof hi));
    CK(cudaMemcpy(dinfo, &hi, sizeof hi, cudaMemcpyHostToDevice));
    void *info = dinfo;

    cufftHandle p;
    CF(cufftCreate(&p));
    bool r2cl = c.type != CUFFT_C2C && c.type != CUFFT_Z2Z;
    cufftXtCallbackType lt = (cufftXtCallbackType)((r2cl && !icx ? CUFFT_CB_LD_REAL : CUFFT_CB_LD_COMPLEX) + dbl);
    cufftXtCallbackType stt = (cufftXtCallbackType)((r2cl && !ocx ? CUFFT_CB_ST_REAL : CUFFT_CB_ST_COMPLEX) + dbl);
    if (c.load) CF(cufftXtSetJITCallback(p, c.load, fatbin.data(), fatbin.size(), lt, &info));
    if (c.store) CF(cufftXtSetJITCallback(p, c.store, fatbin.data(), fatbin.size(), stt, &info));
    if (c.store && c.shared) CF(cufftXtSetCallbackSharedSize(p, stt, c.shared));
    size_t ws;
    long long n[3] = { c.n[0], c.n[1], c.n[2] }, ie[3], oe[3];
    for (int d = 0; d < 3; d++) { ie[d] = c.inembed[d]; oe[d] = c.onembed[d]; }
    CF(cufftMakePlanMany64(p, c.rank, n, c.advanced ? ie : NULL, c.istride, c.idist, c.advanced ? oe : NULL,
                           c.ostride, c.odist, c.type, c.batch, &ws));
    CF(cufftSetStream(p, s));

    cudaGraphExec_t ge = NULL;
    if (graph) {
        cudaGraph_t g;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
        CF(cufftXtExec(p, din, dout, c.dir));
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphDestroy(g));
    }
    double worst = 0;
    for (int round = 0; round < (graph ? 2 : 1); round++) {
        if (round) for (auto &v : in) v = 2.0 - 0.5 * v;   // new input for the graph's second launch
        if (!c.inplace) up(out0, dout);
        up(in, din);
        if (graph) CK(cudaGraphLaunch(ge, s));
        else CF(cufftXtExec(p, din, dout, c.dir));
        if (destroy_early) CF(cufftDestroy(p));   // its queued work still runs
        CK(cudaStreamSynchronize(s));
        std::vector<double> got(c.inplace ? in.size() : out0.size());
        if (dbl) CK(cudaMemcpy(got.data(), dout, got.size() * 8, cudaMemcpyDeviceToHost));
        else {
            std::vector<float> f(got.size());
            CK(cudaMemcpy(f.data(), dout, f.size() * 4, cudaMemcpyDeviceToHost));
            for (size_t k = 0; k < f.size(); k++) got[k] = f[k];
        }
        // the reference: loaded input per batch, logical order
        bool ld = c.load && apply_callbacks_in_reference, st = c.store && apply_callbacks_in_reference;
        long long ni = count(is), no = count(os);
        std::vector<double> xr(ni * c.batch), xi(ni * c.batch, 0.0);
        for (long long i = 0; i < ni * c.batch; i++) {
            long long idx[3], b, off = offset(c, is, i, idx, &b);
            for (int q = 0; q < icomp; q++) {
                double v = in[off * icomp + q];
                if (ld) v = v * hi.scale + add[off * icomp + q];
                (q ? xi : xr)[i] = v;
            }
        }
        double sign = c.type == CUFFT_C2C || c.type == CUFFT_Z2Z ? c.dir : r2cl && icx ? 1 : -1;
        std::vector<double> yr(no * c.batch), yi(no * c.batch);
        long long N = c.n[0] * (c.rank > 1 ? c.n[1] : 1) * (c.rank > 2 ? c.n[2] : 1);
        for (long long o = 0; o < no * c.batch; o++) {
            long long k[3] = { 0, 0, 0 }, b;
            offset(c, os, o, k, &b);
            double ar = 0, ai = 0;
            if (r2cl && icx) {   // C2R, rank 1: the Hermitian sum (imaginary parts of 0 and n/2 unused)
                long long nn = c.n[0], nc = nn / 2 + 1, j = k[0];
                for (long long q = 0; q < nc; q++) {
                    double re = xr[b * nc + q], im = xi[b * nc + q];
                    double w = 2 * M_PI * (double)(q * j % nn) / (double)nn;
                    bool edge = q == 0 || (nn % 2 == 0 && q == nn / 2);
                    ar += edge ? re * std::cos(w) : 2 * (re * std::cos(w) - im * std::sin(w));
                }
            } else {
                for (long long t = 0; t < N; t++) {
                    long long r = t, j[3] = { 0, 0, 0 };
                    for (int d = c.rank - 1; d >= 0; d--) { j[d] = r % c.n[d]; r /= c.n[d]; }
                    double ph = 0;
                    for (int d = 0; d < c.rank; d++) ph += (double)(j[d] * k[d] % c.n[d]) / (double)c.n[d];
                    double w = sign * 2 * M_PI * ph;
                    double re = xr[b * N + t], im = xi[b * N + t];
                    ar += re * std::cos(w) - im * std::sin(w);
                    ai += re * std::sin(w) + im * std::cos(w);
                }
            }
            yr[o] = ar;
            yi[o] = ai;
        }
        // the expected output array, element by element
        double maxref = 0, maxerr = 0;
        int unwritten_changed = 0;
        for (long long o = 0; o < no * c.batch; o++) {
            long long k[3], b, off = offset(c, os, o, k, &b);
            bool written = !st || off % 3 != 0;
            for (int q = 0; q < ocomp; q++) {
                double want = q ? yi[o] : yr[o];
                if (st) want = want * hi.oscale + (q ? 0.0 : (double)off);
                if (!written) {
                    if (c.inplace) continue;   // what cuFFT leaves there is not defined
                    if (got[off * ocomp + q] != out0[off * ocomp + q]) unwritten_changed++;
                    checks++;
                    continue;
                }
                maxref = std::max(maxref, std::fabs(want));
                maxerr = std::max(maxerr, std::fabs(got[off * ocomp + q] - want));
                checks++;
            }
        }
        worst = std::max(worst, maxerr / (1 + maxref));
        if (unwritten_changed) {
            std::printf("%s: %d elements the store callback does not write changed\n", c.name, unwritten_changed);
            worst = HUGE_VAL;
        }
    }
    if (ge) CK(cudaGraphExecDestroy(ge));
    if (!destroy_early) CF(cufftDestroy(p));
    CK(cudaFree(din));
    if (!c.inplace) CK(cudaFree(dout));
    CK(cudaFree(dadd));
    CK(cudaFree(dinfo));
    return worst;
}

static void read_fatbin(const char *path)
{
    FILE *f = std::fopen(path, "rb");
    if (!f) { std::printf("cannot open %s\n", path); std::exit(1); }
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) fatbin.insert(fatbin.end(), buf, buf + n);
    std::fclose(f);
}

int main(int argc, char **argv)
{
    if (argc != 2) { std::printf("usage: fftcb CALLBACKS.fatbin\n"); return 2; }
    read_fatbin(argv[1]);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    {
        // NVIDIA's NVRTC and nvJitLink are what links the callbacks
        cufftHandle p;
        void *info = NULL;
        CF(cufftCreate(&p));
        cufftResult r = cufftXtSetJITCallback(p, "ld_c", fatbin.data(), fatbin.size(), CUFFT_CB_LD_COMPLEX, &info);
        CF(cufftDestroy(p));
        if (r == CUFFT_MISSING_DEPENDENCY) {
            std::printf("NVIDIA's NVRTC or nvJitLink (libnvrtc.so.13, libnvJitLink.so.13) is not found\n");
            return 77;
        }
        CF(r);
    }
    const cbcase cases[] = {
        { "C2C 1-D n 16 batch 3, load and store", CUFFT_C2C, 1, { 16 }, 3, 0, {}, 1, 0, {}, 1, 0, 0, "ld_c", "st_c", CUFFT_FORWARD, 0 },
        { "C2C 2-D 4x6 batch 2 in place, load", CUFFT_C2C, 2, { 4, 6 }, 2, 0, {}, 1, 0, {}, 1, 0, 1, "ld_c", NULL, CUFFT_INVERSE, 0 },
        { "C2C 2-D 4x6 batch 2 in place, store", CUFFT_C2C, 2, { 4, 6 }, 2, 0, {}, 1, 0, {}, 1, 0, 1, NULL, "st_c", CUFFT_FORWARD, 0 },
        { "C2C 1-D n 12 batch 3 advanced (istride 2 idist 30, odist 13), load and store", CUFFT_C2C, 1, { 12 }, 3, 1,
          { 15 }, 2, 30, { 13 }, 1, 13, 0, "ld_c", "st_c", CUFFT_FORWARD, 0 },
        { "C2C 1-D n 16 batch 2, store with 64 bytes of shared memory", CUFFT_C2C, 1, { 16 }, 2, 0, {}, 1, 0, {}, 1, 0, 0, NULL, "st_c", CUFFT_INVERSE, 64 },
        { "R2C 1-D n 16 batch 2, load and store", CUFFT_R2C, 1, { 16 }, 2, 0, {}, 1, 0, {}, 1, 0, 0, "ld_r", "st_c", 0, 0 },
        { "R2C 2-D 5x8 in place (padded), load", CUFFT_R2C, 2, { 5, 8 }, 1, 0, {}, 1, 0, {}, 1, 0, 1, "ld_r", NULL, 0, 0 },
        { "C2R 1-D n 16 batch 2, load and store", CUFFT_C2R, 1, { 16 }, 2, 0, {}, 1, 0, {}, 1, 0, 0, "ld_c", "st_r", 0, 0 },
        { "Z2Z 1-D n 10 batch 2, load and store", CUFFT_Z2Z, 1, { 10 }, 2, 0, {}, 1, 0, {}, 1, 0, 0, "ld_z", "st_z", CUFFT_FORWARD, 0 },
        { "D2Z 1-D n 12 batch 2, load (C++ name) and store", CUFFT_D2Z, 1, { 12 }, 2, 0, {}, 1, 0, {}, 1, 0, 0, "_Z4ld_dPvyS_S_", "st_z", 0, 0 },
        { "Z2D 1-D n 10, load and store", CUFFT_Z2D, 1, { 10 }, 1, 0, {}, 1, 0, {}, 1, 0, 0, "ld_z", "st_d", 0, 0 },
    };
    for (const cbcase &c : cases) {
        double e = run_case(c, s);
        double tol = is_dbl(c.type) ? 1e-10 : 1e-4;
        std::printf("%s: error %.2g (tolerance %g)\n", c.name, e, tol);
        if (!(e <= tol)) { std::printf("FAIL %s\n", c.name); return 1; }
    }
    // the check can fail: the reference without the callbacks is far off
    double off = run_case(cases[0], s, false);
    std::printf("%s against a reference without the callbacks: error %.2g\n", cases[0].name, off);
    if (!(off > 1e-2)) { std::printf("FAIL the callbacks made no difference\n"); return 1; }
    // the plan destroyed before its queued work has run
    double de = run_case(cases[0], s, true, false, true);
    std::printf("%s, the plan destroyed before the stream is synchronised: error %.2g\n", cases[0].name, de);
    if (!(de <= 1e-4)) { std::printf("FAIL destroyed early\n"); return 1; }
    // a graph captured once, launched twice with new input
    double ge = run_case(cases[0], s, true, true);
    std::printf("%s, captured into a graph, 2 launches: error %.2g\n", cases[0].name, ge);
    if (!(ge <= 1e-4)) { std::printf("FAIL graph\n"); return 1; }

    // bad input
    void *null_info = NULL;
    const void *fb = fatbin.data();
    size_t fs = fatbin.size();
    cufftHandle p;
    CF(cufftCreate(&p));
    EXPECT(cufftXtSetJITCallback(12345, "ld_c", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_PLAN);
    EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, fs, CUFFT_CB_UNDEFINED, &null_info), CUFFT_INVALID_TYPE);
    EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, fs, (cufftXtCallbackType)-1, &null_info), CUFFT_INVALID_TYPE);
    EXPECT(cufftXtSetJITCallback(p, "ld_c", NULL, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, 0, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetJITCallback(p, NULL, fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetJITCallback(p, "ld c", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetJITCallback(p, "ld_c); __global__ void x(", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info),
           CUFFT_INVALID_VALUE);
    std::vector<char> longname(5000, 'a');
    longname.back() = 0;
    EXPECT(cufftXtSetJITCallback(p, longname.data(), fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetJITCallback(p, "no_such_callback", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info),
           CUFFT_NVJITLINK_FAILURE);
    std::vector<char> junk(256);
    for (size_t k = 0; k < junk.size(); k++) junk[k] = (char)(k * 37 + 11);
    EXPECT(cufftXtSetJITCallback(p, "ld_c", junk.data(), junk.size(), CUFFT_CB_LD_COMPLEX, &null_info),
           CUFFT_NVJITLINK_FAILURE);
    // a real load callback on a C2C plan: refused when the plan is made
    EXPECT(cufftXtSetJITCallback(p, "ld_r", fb, fs, CUFFT_CB_LD_REAL, &null_info), CUFFT_SUCCESS);
    size_t ws;
    EXPECT(cufftMakePlan1d(p, 16, CUFFT_C2C, 1, &ws), CUFFT_INVALID_TYPE);
    EXPECT(cufftExecC2C(p, NULL, NULL, CUFFT_FORWARD), CUFFT_INVALID_PLAN);   // not made
    EXPECT(cufftXtSetCallbackSharedSize(p, CUFFT_CB_ST_COMPLEX, (size_t)1 << 30), CUFFT_INVALID_VALUE);
    EXPECT(cufftXtSetCallbackSharedSize(p, CUFFT_CB_UNDEFINED, 16), CUFFT_INVALID_TYPE);
    EXPECT(cufftXtSetCallbackSharedSize(12345, CUFFT_CB_ST_COMPLEX, 16), CUFFT_INVALID_PLAN);
    // NVIDIA's shared libcufft.so.12 does not implement cufftXtClearCallback
    // (a bare return of CUFFT_NOT_IMPLEMENTED): the callback stays
    EXPECT(cufftXtClearCallback(p, CUFFT_CB_LD_REAL), CUFFT_NOT_IMPLEMENTED);
    EXPECT(cufftXtClearCallback(12345, CUFFT_CB_LD_REAL), CUFFT_NOT_IMPLEMENTED);
    EXPECT(cufftMakePlan1d(p, 16, CUFFT_C2C, 1, &ws), CUFFT_INVALID_TYPE);
    CF(cufftDestroy(p));
    CF(cufftCreate(&p));
    EXPECT(cufftMakePlan1d(p, 16, CUFFT_C2C, 1, &ws), CUFFT_SUCCESS);
    // on a made plan: the type is checked at once
    EXPECT(cufftXtSetJITCallback(p, "st_r", fb, fs, CUFFT_CB_ST_REAL, &null_info), CUFFT_INVALID_TYPE);
    EXPECT(cufftXtSetJITCallback(p, "ld_z", fb, fs, CUFFT_CB_LD_COMPLEX_DOUBLE, &null_info), CUFFT_INVALID_TYPE);
    CF(cufftDestroy(p));
    EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_INVALID_PLAN);
    // half precision: no callback types for it
    CF(cufftCreate(&p));
    EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_SUCCESS);
    {
        long long hn = 16;
        EXPECT(cufftXtMakePlanMany(p, 1, &hn, NULL, 1, 0, CUDA_C_16F, NULL, 1, 0, CUDA_C_16F, 1, &ws, CUDA_C_16F),
               CUFFT_NOT_SUPPORTED);
    }
    CF(cufftDestroy(p));
    // a plan over several GPUs
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    if (ndev >= 2) {
        int gpus[2] = { 0, 1 };
        CF(cufftCreate(&p));
        CF(cufftXtSetGPUs(p, 2, gpus));
        EXPECT(cufftXtSetJITCallback(p, "ld_c", fb, fs, CUFFT_CB_LD_COMPLEX, &null_info), CUFFT_NOT_SUPPORTED);
        CF(cufftDestroy(p));
    } else {
        std::printf("one device: a plan over several GPUs is not tried\n");
    }
    // the legacy callbacks are in NVIDIA's static cuFFT only: its shared
    // library returns CUFFT_NOT_IMPLEMENTED
    CF(cufftCreate(&p));
    EXPECT(cufftXtSetCallback(p, (void **)&null_info, CUFFT_CB_LD_COMPLEX, NULL), CUFFT_NOT_IMPLEMENTED);
    CF(cufftDestroy(p));
    std::printf("fftcb: %zu cases, %d elements checked, bad input refused\n", sizeof cases / sizeof cases[0], checks);
    return 0;
}
