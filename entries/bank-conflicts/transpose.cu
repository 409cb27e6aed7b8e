// Transpose of a rows x cols float matrix (row-major) through a 32 x 32 tile of shared memory.
// A block of 32 x 8 threads moves one tile: each thread copies four elements, 8 rows apart.
// Both global accesses are coalesced: a warp reads 32 neighbouring floats of a row of `a` and
// writes 32 neighbouring floats of a row of `b`.  The transpose happens on chip: a warp stores
// a row of the tile and later reads a column of it.
//
// Shared memory has 32 banks of 4-byte words; word w lives in bank w % 32.  With a row of 32
// floats (PAD 0), the 32 words of a tile column are 32 apart, all in one bank: the column read
// is a 32-way conflict, served in 32 passes (wavefronts) instead of one.  With one float of
// padding per row (PAD 1, tile[32][33]), column words are 33 apart and fall in 32 different banks.
// The row store is conflict-free either way.  Needs rows % 32 == 0 and cols % 32 == 0.
#define TILE 32
#define BLOCK_ROWS 8

template <int PAD>
__device__ __forceinline__ void transpose_tile(const float* __restrict__ a, float* __restrict__ b,
                                               long long rows, long long cols) {
    __shared__ float tile[TILE][TILE + PAD];
    long long c = blockIdx.x * (long long)TILE + threadIdx.x;   // column of a
    long long r = blockIdx.y * (long long)TILE + threadIdx.y;   // row of a
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = a[(r + j) * cols + c];   // a row of the tile
    __syncthreads();
    long long bc = blockIdx.y * (long long)TILE + threadIdx.x;  // column of b (= row of a)
    long long br = blockIdx.x * (long long)TILE + threadIdx.y;  // row of b (= column of a)
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        b[(br + j) * rows + bc] = tile[threadIdx.x][threadIdx.y + j];  // a column of the tile
}

extern "C" __global__ void transpose_naive(const float* __restrict__ a, float* __restrict__ b,
                                           long long rows, long long cols) {
    transpose_tile<0>(a, b, rows, cols);
}

extern "C" __global__ void transpose_padded(const float* __restrict__ a, float* __restrict__ b,
                                            long long rows, long long cols) {
    transpose_tile<1>(a, b, rows, cols);
}
