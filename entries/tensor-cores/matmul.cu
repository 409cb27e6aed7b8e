// C = A * B for row-major A (m x k) and B (k x n) held in 16-bit floats, C (m x n) in float32,
// two ways: on the tensor cores through the warp-level wmma API, and on the FMA pipes.
// Both kernels stage the same 64 x 64 output tile per block through shared memory, step
// through k in slices of 32 and accumulate in float32; what differs is the instruction that
// multiplies.  Needs m, n % 64 == 0 and k % 32 == 0.
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define APAD 8   // halves of padding per shared row: keeps 16-byte alignment, spreads banks
#define BPAD 8

// Tensor cores: 4 warps (128 threads) per block, each warp owns a 32 x 32 quarter of the
// tile as 2 x 2 accumulator fragments of 16 x 16 floats.
template <typename T>
__device__ __forceinline__ void mm_wmma(const T* __restrict__ a, const T* __restrict__ b, float* __restrict__ c,
                                        int m, int n, int k) {
    __shared__ __align__(32) T as[BM][BK + APAD];
    __shared__ __align__(32) T bs[BK][BN + BPAD];
    int warp = threadIdx.x / 32;
    int wm = (warp / 2) * 32, wn = (warp % 2) * 32;   // this warp's quarter of the tile
    long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < k; k0 += BK) {
        // 64 x 32 halves of A and 32 x 64 of B: 2,048 each, 16 per thread, in 8-byte pieces.
        for (int e = threadIdx.x * 4; e < BM * BK; e += blockDim.x * 4) {
            int r = e / BK, cc = e % BK;
            *reinterpret_cast<uint2*>(&as[r][cc]) =
                *reinterpret_cast<const uint2*>(&a[(row0 + r) * k + k0 + cc]);
        }
        for (int e = threadIdx.x * 4; e < BK * BN; e += blockDim.x * 4) {
            int r = e / BN, cc = e % BN;
            *reinterpret_cast<uint2*>(&bs[r][cc]) =
                *reinterpret_cast<const uint2*>(&b[(long long)(k0 + r) * n + col0 + cc]);
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> fb[2];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(fa[i], &as[wm + 16 * i][kk], BK + APAD);
#pragma unroll
            for (int j = 0; j < 2; ++j) wmma::load_matrix_sync(fb[j], &bs[kk][wn + 16 * j], BN + BPAD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 2; ++j)
            wmma::store_matrix_sync(&c[(row0 + wm + 16 * i) * n + col0 + wn + 16 * j], acc[i][j], n,
                                    wmma::mem_row_major);
}

extern "C" __global__ void __launch_bounds__(128) mm_wmma_f16(const __half* __restrict__ a, const __half* __restrict__ b,
                                                              float* __restrict__ c, int m, int n, int k) {
    mm_wmma<__half>(a, b, c, m, n, k);
}

extern "C" __global__ void __launch_bounds__(128) mm_wmma_bf16(const __nv_bfloat16* __restrict__ a,
                                                               const __nv_bfloat16* __restrict__ b,
                                                               float* __restrict__ c, int m, int n, int k) {
    mm_wmma<__nv_bfloat16>(a, b, c, m, n, k);
}

// FMA pipes: 256 threads per block, each computes a 4 x 4 patch of the 64 x 64 tile with
// float32 fused multiply-adds.  The halves are converted to float once, on the way into
// shared memory (exactly: every half is a float), so the inner loop is loads and FFMAs only.
extern "C" __global__ void __launch_bounds__(256) mm_fma_f16(const __half* __restrict__ a, const __half* __restrict__ b,
                                                             float* __restrict__ c, int m, int n, int k) {
    __shared__ float as[BK][BM + 4];   // A's slice stored transposed: as[kk][row]
    __shared__ float bs[BK][BN + 4];
    int tx = threadIdx.x % 16, ty = threadIdx.x / 16;   // this thread's 4 x 4 patch
    long long row0 = (long long)blockIdx.y * BM, col0 = (long long)blockIdx.x * BN;
    float acc[4][4] = {};
    for (int k0 = 0; k0 < k; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK; e += blockDim.x) {
            int r = e / BK, cc = e % BK;
            as[cc][r] = __half2float(a[(row0 + r) * k + k0 + cc]);
        }
        for (int e = threadIdx.x; e < BK * BN; e += blockDim.x) {
            int r = e / BN, cc = e % BN;
            bs[r][cc] = __half2float(b[(long long)(k0 + r) * n + col0 + cc]);
        }
        __syncthreads();
#pragma unroll 8
        for (int kk = 0; kk < BK; ++kk) {
            float av[4], bv[4];
#pragma unroll
            for (int i = 0; i < 4; ++i) av[i] = as[kk][ty * 4 + i];
#pragma unroll
            for (int j = 0; j < 4; ++j) bv[j] = bs[kk][tx * 4 + j];
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) c[(row0 + ty * 4 + i) * n + col0 + tx * 4 + j] = acc[i][j];
}
