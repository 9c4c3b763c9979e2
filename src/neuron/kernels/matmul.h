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
//   naive      one SBUF buffer per operand, one PSUM bank, every DMA on queue 0, every operand tile reloaded for
//              every output tile: each step waits for the previous one, nothing overlaps (the baseline of the NKI
//              matmul tutorial). Its trace shows every matmul stalled on a DMA.
//   pipelined  blocked with operand reuse: for each M block (up to 512 columns of A_T, fewer when SBUF is short)
//              the A block [K, block] stays resident in SBUF; for each N tile (512) the B strip [K, 512] is loaded
//              once and reused by every 128-row M tile of the block, each of which accumulates its K tiles in its
//              own PSUM bank (rotating over all 8 banks), is copied to SBUF by VectorE and stored. A blocks and B
//              strips are double-buffered, so the next block's / strip's loads (issued in program order, held only
//              by their WAR dependencies) overlap the current matmuls. Queues: A loads 0-3, B loads 4-11, C
//              stores 12-15 (a store waiting for its result never holds up a load queued behind it). HBM traffic:
//              A once, B M/512 times, C once. Needs 2 x ceil(K/128) x (block + 512) x dtype bytes per partition;
//              throws "[sbuf-capacity]" when even a 128-wide block does not fit (K too deep: split K outside).
// fp8 inputs on v3/v4 use the double-row matmul for each pair of K tiles (2x the TensorE rate).
// Not here: transposing A on chip (A is given transposed, [K, M], as nc_matmul's stationary wants
// it), K splitting for very deep K.
#pragma once

#include <source_location>

#include "neuron/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

// Issues the kernel's instructions into `b`. a_t [K,M], bm [K,N] and c [M,N] must be HBM views, c fp32;
// throws nanotrn::Error "[shape]" naming `loc` otherwise.
void matmul_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                   MatmulSchedule schedule, std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
