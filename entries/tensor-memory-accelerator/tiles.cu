// A rows x cols float matrix copied tile by tile (64 x 64 floats, 16 KiB a tile): with plain loads and
// stores, through shared memory with cp.async (LDGSTS), and with the tensor memory accelerator (one
// thread issues a bulk tensor load into shared memory and a bulk tensor store back out).
#include <cuda.h>  // CUtensorMap

#define TILE 64
#define TILE4 (TILE / 4)

extern "C" __global__ void copy_plain(const float* __restrict__ src, float* __restrict__ dst, long long cols)
{
    const long long r0 = (long long)blockIdx.y * TILE, c0 = (long long)blockIdx.x * TILE;
    for (int k = threadIdx.x; k < TILE * TILE4; k += blockDim.x) {
        const long long r = r0 + k / TILE4, c = c0 + 4 * (k % TILE4);
        *reinterpret_cast<float4*>(dst + r * cols + c) = *reinterpret_cast<const float4*>(src + r * cols + c);
    }
}

extern "C" __global__ void copy_cp_async(const float* __restrict__ src, float* __restrict__ dst, long long cols)
{
    __shared__ __align__(16) float4 tile[TILE * TILE4];
    const long long r0 = (long long)blockIdx.y * TILE, c0 = (long long)blockIdx.x * TILE;
    for (int k = threadIdx.x; k < TILE * TILE4; k += blockDim.x) {
        const float* g = src + (r0 + k / TILE4) * cols + c0 + 4 * (k % TILE4);
        const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&tile[k]));
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(s), "l"(g) : "memory");
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
    asm volatile("cp.async.wait_group 0;" ::: "memory");
    __syncthreads();
    for (int k = threadIdx.x; k < TILE * TILE4; k += blockDim.x) {
        const long long r = r0 + k / TILE4, c = c0 + 4 * (k % TILE4);
        *reinterpret_cast<float4*>(dst + r * cols + c) = tile[k];
    }
}

extern "C" __global__ void copy_tma(const __grid_constant__ CUtensorMap src, const __grid_constant__ CUtensorMap dst)
{
    __shared__ __align__(128) float tile[TILE * TILE];
    __shared__ __align__(8) unsigned long long full;
    if (threadIdx.x != 0) return;
    const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
    const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
    const unsigned smem = static_cast<unsigned>(__cvta_generic_to_shared(tile));
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(bar), "r"(TILE * TILE * 4) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"(smem), "l"(&src), "r"(c0), "r"(r0), "r"(bar) : "memory");
    asm volatile("{\n.reg .pred done;\nwait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], 0;\n"
                 "@!done bra wait_%=;\n}" :: "r"(bar) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                 :: "l"(&dst), "r"(c0), "r"(r0), "r"(smem) : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");  // shared memory read out before the block ends
}
