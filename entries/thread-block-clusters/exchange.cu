// Each block squares a tile of 1,024 floats and adds the squared tile of the next block of its
// cluster (rank + 1, wrapping): through distributed shared memory in one kernel, or through a
// global scratch buffer between two kernels.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

#define TILE4 256  // float4s per block tile: 1,024 floats, one float4 per thread of a 256-thread block

extern "C" __global__ void exchange_dsmem(const float4* __restrict__ x, float4* __restrict__ y)
{
    __shared__ float4 t[TILE4];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    const unsigned size = cluster.num_blocks();
    const long long base = (long long)blockIdx.x * TILE4;
    float4 v = x[base + threadIdx.x];
    t[threadIdx.x] = make_float4(v.x * v.x, v.y * v.y, v.z * v.z, v.w * v.w);
    cluster.sync();                                   // every tile of the cluster is written
    const float4* next = cluster.map_shared_rank(t, (rank + 1) % size);
    float4 own = t[threadIdx.x], other = next[threadIdx.x];
    y[base + threadIdx.x] = make_float4(own.x + other.x, own.y + other.y, own.z + other.z, own.w + other.w);
    cluster.sync();                                   // no block leaves while its tile may still be read
}

extern "C" __global__ void square_to_global(const float4* __restrict__ x, float4* __restrict__ t)
{
    const long long i = (long long)blockIdx.x * TILE4 + threadIdx.x;
    float4 v = x[i];
    t[i] = make_float4(v.x * v.x, v.y * v.y, v.z * v.z, v.w * v.w);
}

extern "C" __global__ void exchange_global(const float4* __restrict__ t, float4* __restrict__ y, int cluster)
{
    const long long block = blockIdx.x;
    const long long rank = block % cluster;
    const long long next = block - rank + (rank + 1) % cluster;
    float4 own = t[block * TILE4 + threadIdx.x], other = t[next * TILE4 + threadIdx.x];
    y[block * TILE4 + threadIdx.x] = make_float4(own.x + other.x, own.y + other.y, own.z + other.z, own.w + other.w);
}
