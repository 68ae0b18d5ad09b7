/* SPDX-License-Identifier: Apache-2.0 */
// CUDA arrays, texture and surface objects through the CUDA runtime, each
// result checked against a host computation: tex2D with linear filtering
// and normalised coordinates under every address mode (the weights in 1.8
// fixed point, as the CUDA Programming Guide's texture-fetching appendix
// describes the hardware), 8-bit data read as normalised floats, a 3-D
// array filled by cudaMemcpy3D and read by tex3D, a layered array by
// tex2DLayered, linear memory by tex1Dfetch, a surface written by
// surf2Dwrite and read by surf2Dread and a copy back, and bad input.
#include "common.h"
#include <cmath>
#include <cstring>
#include <vector>

static const int W = 13, H = 7;

__global__ void sample2d(cudaTextureObject_t t, const float2 *uv, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float>(t, uv[i].x, uv[i].y);
}

__global__ void sample2d4(cudaTextureObject_t t, const float2 *uv, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, uv[i].x, uv[i].y);
}

__global__ void gather2d(cudaTextureObject_t t, const float2 *uv, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, uv[i].x, uv[i].y, 1); // component y
}

__global__ void sample3d(cudaTextureObject_t t, float *out, int w, int h, int d)
{
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    if (x < w && y < h && z < d) out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void sample_layers(cudaTextureObject_t t, float *out, int w, int h, int layers)
{
    int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
    if (x < w && y < h && l < layers) out[(l * h + y) * w + x] = tex2DLayered<float>(t, x + 0.5f, y + 0.5f, l);
}

__global__ void fetch1d(cudaTextureObject_t t, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i - 2); // two before the start, and past the end
}

__global__ void surf_write(cudaSurfaceObject_t s, int w, int h)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) surf2Dwrite(x * 100 + y, s, x * (int)sizeof(int), y);
}

__global__ void surf_read(cudaSurfaceObject_t s, int *out, int w, int h)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) out[y * w + x] = surf2Dread<int>(s, x * (int)sizeof(int), y) + 1;
}

__global__ void cube_write(cudaSurfaceObject_t s, int w)
{
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    if (x < w && y < w) surfCubemapwrite(face * 1000 + y * 10 + x, s, x * (int)sizeof(int), y, face);
}

// ---- the host's texture unit --------------------------------------------

static int addr(int i, int n, cudaTextureAddressMode m)
{
    if (i >= 0 && i < n) return i;
    switch (m) {
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeMirror: { int p = ((i % (2 * n)) + 2 * n) % (2 * n); return p < n ? p : 2 * n - 1 - p; }
    case cudaAddressModeBorder: return -1;
    default: return i < 0 ? 0 : n - 1;
    }
}

static float host_linear(const std::vector<float> &img, float u, float v, cudaTextureAddressMode m, float border)
{
    float x = u * W - 0.5f, y = v * H - 0.5f;
    int i = (int)std::floor(x), j = (int)std::floor(y);
    float a = std::rint((x - std::floor(x)) * 256.0f) / 256.0f, b = std::rint((y - std::floor(y)) * 256.0f) / 256.0f;
    float r = 0;
    for (int dj = 0; dj < 2; dj++)
        for (int di = 0; di < 2; di++) {
            int xi = addr(i + di, W, m), yj = addr(j + dj, H, m);
            float t = xi < 0 || yj < 0 ? border : img[yj * W + xi];
            r += (di ? a : 1 - a) * (dj ? b : 1 - b) * t;
        }
    return r;
}

static void check_close(const char *what, int idx, float got, float want)
{
    if (!(std::fabs(got - want) <= 1e-5f * (1 + std::fabs(want)))) {
        std::fprintf(stderr, "%s [%d]: got %.9g, want %.9g\n", what, idx, got, want);
        rt_failed = 1;
    }
}

static void linear_modes()
{
    std::vector<float> img(W * H);
    for (int i = 0; i < W * H; i++) img[i] = (float)((i * 37) % 101) / 7.0f;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &cd, W, H));
    CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    // coordinates inside, on texel centres and edges, and outside [0, 1]
    std::vector<float2> uv;
    for (int k = 0; k < 97; k++)
        uv.push_back(make_float2(-1.3f + k * 0.0371f, 2.2f - k * 0.0419f));
    uv.push_back(make_float2(0.5f / W, 0.5f / H));
    uv.push_back(make_float2(1.0f, 1.0f));
    int n = (int)uv.size();
    float2 *duv;
    float *dout;
    CK(cudaMalloc(&duv, n * sizeof(float2)));
    CK(cudaMalloc(&dout, n * sizeof(float)));
    CK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    const cudaTextureAddressMode modes[] = { cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror,
                                             cudaAddressModeBorder };
    const char *names[] = { "wrap", "clamp", "mirror", "border" };
    for (int mi = 0; mi < 4; mi++) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeArray;
        rd.res.array.array = arr;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = modes[mi];
        td.filterMode = cudaFilterModeLinear;
        td.readMode = cudaReadModeElementType;
        td.normalizedCoords = 1;
        td.borderColor[0] = 2.5f;
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
        sample2d<<<(n + 63) / 64, 64>>>(t, duv, dout, n);
        CK(cudaGetLastError());
        std::vector<float> out(n);
        CK(cudaMemcpy(out.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            check_close(names[mi], i, out[i], host_linear(img, uv[i].x, uv[i].y, modes[mi], 2.5f));
        cudaTextureDesc back;
        CK(cudaGetTextureObjectTextureDesc(&back, t));
        EXPECT(back.addressMode[0] == modes[mi] && back.filterMode == cudaFilterModeLinear);
        CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFree(duv));
    CK(cudaFree(dout));
    CK(cudaFreeArray(arr));
    std::printf("linear filtering, 4 address modes, %d points each: checked\n", n);
}

static void normalized_uchar4()
{
    const int w = 5, h = 3;
    std::vector<uchar4> img(w * h);
    for (int i = 0; i < w * h; i++) img[i] = make_uchar4(i * 17, 255 - i, i * 3, 200);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &cd, w, h));
    CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * 4, w * 4, h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeNormalizedFloat;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<float2> uv;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) uv.push_back(make_float2(x + 0.5f, y + 0.5f));
    int n = w * h;
    float2 *duv;
    float4 *dout;
    CK(cudaMalloc(&duv, n * sizeof(float2)));
    CK(cudaMalloc(&dout, n * sizeof(float4)));
    CK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    sample2d4<<<1, 64>>>(t, duv, dout, n);
    std::vector<float4> out(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        check_close("uchar4.x", i, out[i].x, img[i].x / 255.0f);
        check_close("uchar4.y", i, out[i].y, img[i].y / 255.0f);
        check_close("uchar4.w", i, out[i].w, img[i].w / 255.0f);
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(arr));
    CK(cudaFree(duv));
    CK(cudaFree(dout));
    std::printf("uchar4 read as normalised floats: checked\n");
}

// tex2Dgather: component 1 of the 2 x 2 texels bilinear filtering reads,
// in the order (i, j+1), (i+1, j+1), (i+1, j), (i, j), clamped at the edges
static void gather()
{
    const int w = 7, h = 5;
    std::vector<float2> img(w * h);
    for (int i = 0; i < w * h; i++) img[i] = make_float2(-1.0f, i * 1.5f + 2);
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float2>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &cd, w, h, cudaArrayTextureGather));
    CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float2), w * sizeof(float2), h, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    std::vector<float2> uv;
    for (int k = 0; k < 40; k++) uv.push_back(make_float2(-0.7f + k * 0.23f, 5.9f - k * 0.17f));
    int n = (int)uv.size();
    float2 *duv;
    float4 *dout;
    CK(cudaMalloc(&duv, n * sizeof(float2)));
    CK(cudaMalloc(&dout, n * sizeof(float4)));
    CK(cudaMemcpy(duv, uv.data(), n * sizeof(float2), cudaMemcpyHostToDevice));
    gather2d<<<1, 64>>>(t, duv, dout, n);
    CK(cudaGetLastError());
    std::vector<float4> out(n);
    CK(cudaMemcpy(out.data(), dout, n * sizeof(float4), cudaMemcpyDeviceToHost));
    auto at = [&](int x, int y) {
        x = x < 0 ? 0 : x >= w ? w - 1 : x;
        y = y < 0 ? 0 : y >= h ? h - 1 : y;
        return img[y * w + x].y;
    };
    for (int k = 0; k < n; k++) {
        int i = (int)std::floor(uv[k].x - 0.5f), j = (int)std::floor(uv[k].y - 0.5f);
        check_close("gather.x", k, out[k].x, at(i, j + 1));
        check_close("gather.y", k, out[k].y, at(i + 1, j + 1));
        check_close("gather.z", k, out[k].z, at(i + 1, j));
        check_close("gather.w", k, out[k].w, at(i, j));
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(arr));
    CK(cudaFree(duv));
    CK(cudaFree(dout));
    std::printf("tex2Dgather of component 1: checked\n");
}

static cudaTextureObject_t point_tex(cudaArray_t a)
{
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaTextureDesc td = {};
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    return t;
}

static void volume_and_layers()
{
    const int w = 6, h = 5, d = 4;
    std::vector<float> vol(w * h * d), out(w * h * d);
    for (int i = 0; i < w * h * d; i++) vol[i] = i * 0.25f - 3;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    float *dout;
    CK(cudaMalloc(&dout, vol.size() * sizeof(float)));
    for (int layered = 0; layered < 2; layered++) {
        cudaArray_t arr;
        CK(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(w, h, d), layered ? cudaArrayLayered : 0));
        cudaMemcpy3DParms p = {};
        p.srcPtr = make_cudaPitchedPtr(vol.data(), w * sizeof(float), w, h);
        p.dstArray = arr;
        p.extent = make_cudaExtent(w, h, d);
        p.kind = cudaMemcpyHostToDevice;
        CK(cudaMemcpy3D(&p));
        cudaTextureObject_t t = point_tex(arr);
        if (layered) sample_layers<<<d, dim3(w, h)>>>(t, dout, w, h, d);
        else sample3d<<<d, dim3(w, h)>>>(t, dout, w, h, d);
        CK(cudaGetLastError());
        CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < w * h * d; i++) check_close(layered ? "layered" : "3d", i, out[i], vol[i]);
        // and back through cudaMemcpy3D from the array
        std::vector<float> back(w * h * d);
        cudaMemcpy3DParms q = {};
        q.srcArray = arr;
        q.dstPtr = make_cudaPitchedPtr(back.data(), w * sizeof(float), w, h);
        q.extent = make_cudaExtent(w, h, d);
        q.kind = cudaMemcpyDeviceToHost;
        CK(cudaMemcpy3D(&q));
        EXPECT(std::memcmp(back.data(), vol.data(), vol.size() * sizeof(float)) == 0);
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(arr));
    }
    CK(cudaFree(dout));
    std::printf("3-D and layered arrays through cudaMemcpy3D, tex3D, tex2DLayered: checked\n");
}

static void linear_fetch()
{
    const int n = 10;
    int host[n];
    for (int i = 0; i < n; i++) host[i] = i * i - 7;
    int *dbuf, *dout;
    CK(cudaMalloc(&dbuf, sizeof host));
    CK(cudaMalloc(&dout, (n + 4) * sizeof(int)));
    CK(cudaMemcpy(dbuf, host, sizeof host, cudaMemcpyHostToDevice));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = dbuf;
    rd.res.linear.desc = cudaCreateChannelDesc<int>();
    rd.res.linear.sizeInBytes = sizeof host;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &rd, &td, nullptr));
    fetch1d<<<1, n + 4>>>(t, dout, n + 4);
    int out[n + 4];
    CK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n + 4; i++) {
        int k = i - 2, want = k >= 0 && k < n ? host[k] : 0; // outside a linear texture: zero
        if (out[i] != want) { std::fprintf(stderr, "tex1Dfetch(%d) = %d, want %d\n", k, out[i], want); rt_failed = 1; }
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(dbuf));
    CK(cudaFree(dout));
    std::printf("tex1Dfetch on linear memory, in and out of range: checked\n");
}

static void surfaces()
{
    const int w = 9, h = 4;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &cd, w, h, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    surf_write<<<1, dim3(w, h)>>>(s, w, h);
    CK(cudaGetLastError());
    int host[h][w], *dout;
    CK(cudaMemcpy2DFromArray(host, w * sizeof(int), arr, 0, 0, w * sizeof(int), h, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) EXPECT(host[y][x] == x * 100 + y);
    CK(cudaMalloc(&dout, sizeof host));
    surf_read<<<1, dim3(w, h)>>>(s, dout, w, h);
    CK(cudaMemcpy(host, dout, sizeof host, cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) EXPECT(host[y][x] == x * 100 + y + 1);
    CK(cudaDestroySurfaceObject(s));
    // an array made without cudaArraySurfaceLoadStore is no surface
    cudaArray_t plain;
    CK(cudaMallocArray(&plain, &cd, w, h));
    rd.res.array.array = plain;
    EXPECT(cudaCreateSurfaceObject(&s, &rd) != cudaSuccess);
    cudaGetLastError();
    CK(cudaFreeArray(plain));
    CK(cudaFreeArray(arr));
    CK(cudaFree(dout));
    std::printf("surf2Dwrite, surf2Dread, cudaMemcpy2DFromArray: checked\n");
}

static void cube_surface()
{
    const int w = 4;
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t arr;
    CK(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(w, w, 6), cudaArrayCubemap | cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr;
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &rd));
    cube_write<<<6, dim3(w, w)>>>(s, w);
    CK(cudaGetLastError());
    int host[6][w][w];
    cudaMemcpy3DParms q = {};
    q.srcArray = arr;
    q.dstPtr = make_cudaPitchedPtr(host, w * sizeof(int), w, w);
    q.extent = make_cudaExtent(w, w, 6);
    q.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&q));
    for (int f = 0; f < 6; f++)
        for (int y = 0; y < w; y++)
            for (int x = 0; x < w; x++) EXPECT(host[f][y][x] == f * 1000 + y * 10 + x);
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(arr));
    std::printf("surfCubemapwrite on the 6 faces: checked\n");
}

static void bad_input()
{
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    EXPECT(cudaMallocArray(&arr, &cd, 0, 4) != cudaSuccess);            // no width
    cudaGetLastError();
    EXPECT(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(4, 5, 6), cudaArrayCubemap) != cudaSuccess); // not square
    cudaGetLastError();
    CK(cudaMallocArray(&arr, &cd, 4, 4));
    std::vector<float> big(64);
    EXPECT(cudaMemcpy2DToArray(arr, 0, 0, big.data(), 8 * sizeof(float), 8 * sizeof(float), 2,
                               cudaMemcpyHostToDevice) != cudaSuccess); // wider than the array
    cudaGetLastError();
    EXPECT(cudaMemcpy2DToArray(arr, 0, 2, big.data(), 4 * sizeof(float), 4 * sizeof(float), 3,
                               cudaMemcpyHostToDevice) != cudaSuccess); // rows past its end
    cudaGetLastError();
    CK(cudaFreeArray(arr));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = arr; // destroyed
    cudaTextureDesc td = {};
    cudaTextureObject_t t;
    EXPECT(cudaCreateTextureObject(&t, &rd, &td, nullptr) != cudaSuccess);
    cudaGetLastError();
    std::printf("bad input refused\n");
}

int main()
{
    linear_modes();
    normalized_uchar4();
    gather();
    volume_and_layers();
    linear_fetch();
    surfaces();
    cube_surface();
    bad_input();
    CK(cudaDeviceSynchronize());
    if (rt_failed) { std::printf("texture: FAILED\n"); return 1; }
    std::printf("PASS texture: all checked\n");
    return 0;
}
