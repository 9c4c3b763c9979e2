// A tiled matmul tile kernel for the software NeuronCore: C[M,N] (fp32, HBM) = A_T[K,M]^T @ B[K,N] (HBM, any
// float dtype), with the inputs cast to `compute` on their way into SBUF (DMA casts through fp32).
// Tiles: 128 (M, the stationary free size) x 512 (N, the moving free size / one PSUM bank) x 128 (K, partitions);
// ragged edges use smaller tiles. For each output tile the K tiles accumulate into one PSUM bank
// (accumulate=false on the first, true after), VectorE copies the bank to SBUF, and a DMA stores it.
//
//   KernelBuilder b(spec_for("v3"));
//   View at = b.hbm("a_t", K, M, DType::f32), bm = b.hbm("b", K, N, DType::f32), c = b.hbm("c", M, N, DType::f32);
//   matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::pipelined);
//
// Schedules:
//   naive      one SBUF buffer per operand, one PSUM bank, every DMA on queue 0: each step waits for the previous
//              one, nothing overlaps (the baseline of the NKI matmul tutorial).
//   pipelined  two SBUF buffers per operand and two PSUM banks used alternately, operand loads spread over DMA
//              queues 0/1 and stores on queue 2, so loads of the next step overlap the current matmul and the
//              eviction of the previous output tile.
// Not here: the operand reuse / blocking of the optimised NKI tutorial (keeping a K-strip of A resident), fp8
// double-row, transposing A on chip (A is given transposed, [K, M], as nc_matmul's stationary wants it).
#pragma once

#include <source_location>

#include "neuron/builder.h"

namespace nanotrn::neuron {

enum class MatmulSchedule { naive, pipelined };

// Issues the kernel's instructions into `b`. a_t [K,M], bm [K,N] and c [M,N] must be HBM views, c fp32;
// throws nanotrn::Error "[shape]" naming `loc` otherwise.
void matmul_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                   MatmulSchedule schedule, std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
