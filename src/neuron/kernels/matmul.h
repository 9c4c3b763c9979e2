// A tiled matmul tile kernel for the software NeuronCore: C[M,N] (fp32, HBM) = A_T[K,M]^T @ B[K,N] (HBM, any
// float dtype), with the inputs cast to `compute` on their way into SBUF (DMA casts through fp32).
// Tiles: 128 (M, the stationary free size) x 512 (N, the moving free size / one PSUM bank) x 128 (K, partitions);
// ragged edges use smaller tiles.
//
//   KernelBuilder b(spec_for("v3"));
//   View at = b.hbm("a_t", K, M, DType::f32), bm = b.hbm("b", K, N, DType::f32), c = b.hbm("c", M, N, DType::f32);
//   matmul_kernel(b, at, bm, c, DType::bf16, MatmulSchedule::pipelined);
//
// Schedules:
//   naive      one SBUF buffer per operand, one PSUM bank, every DMA on queue 0, every operand tile reloaded for
//              every output tile: each step waits for the previous one, nothing overlaps (the baseline of the NKI
//              matmul tutorial). Its trace shows every matmul stalled on a DMA.
//   pipelined  blocked with operand reuse, double-buffered (the next block's loads, issued in program order and
//              held only by their WAR dependencies, overlap the current block's matmuls), queues split so loads
//              overlap matmuls: A loads 0-3, B loads 4-11, C stores 12-15 (a store waiting for its result never
//              holds up a load queued behind it). plan_matmul picks one of three blockings (MatmulBlocking) from
//              the spec's SBUF capacity and rates:
//     resident_k  (shallow K: whenever a 512-wide A block fits, i.e. K <= 5,760 bf16 on v2, 6,784 on v3) for each
//                 M block (m_cols <= 512 columns of A_T) the A block [K, m_cols] stays resident; for each N tile
//                 (512) the B strip [K, 512] is loaded once and reused by every 128-row M tile of the block, each
//                 of which accumulates all its K tiles in its own PSUM bank (rotating over the 8 banks), is copied
//                 to SBUF by VectorE and stored. HBM traffic: A once, B ceil(M / m_cols) times, C once. Needs
//                 2 x ceil(K/128) x (m_cols + 512) x dtype bytes per partition.
//     sbuf        (deep K) K-blocked with an fp32 SBUF accumulator, as the NKI tutorial's optimised kernel: for
//                 each output block [m_cols, n_cols] (a [128, n_cols] fp32 accumulator tile per 128-row M tile;
//                 two accumulators, alternating between output blocks so a block's stores overlap the next one),
//                 for each K block of k_rows rows the A block [k_rows, m_cols] and the B block [k_rows, n_cols]
//                 are loaded once (one DMA per K tile and operand); every [128, 512] output tile accumulates the
//                 block's K tiles in a PSUM bank (rotating over the 8), then VectorE copies (first K block) or adds
//                 (later ones) the bank into the accumulator; after the last K block each accumulator row strip
//                 [128, n_cols] is stored. HBM traffic: A ceil(N / n_cols) times, B ceil(M / m_cols) times, C once.
//     psum        K-blocked with the output block held in PSUM (at most 8 [128, 512] tiles, one bank each): the
//                 same loads, every tile accumulating across all K blocks in its bank, one VectorE copy and store
//                 per tile at the end. Least VectorE work, but an 8-tile output block re-reads the operands more
//                 often. Timing model, v2, [4096, 8192] x [8192, 8192] bf16 (TensorE bound 5.99 ms): the best psum
//                 blocking (1024 x 512 output, K blocks of 512) runs 7.55 ms, DMA-bound; the planned sbuf blocking
//                 (1024 x 2048 output, K blocks of 512, 896 MiB of DMA) 6.03 ms. So deep K plans sbuf; psum wins
//                 only where the operands are small (e.g. M = 128).
//              Deep K used to shrink the resident A block to 128 columns (B re-read 32 times, 25.65 ms at the
//              shape above) or throw "[sbuf-capacity]"; the K-blocked plans fit whatever K is.
//              The planner scores each candidate (power-of-two block sizes in tiles, or a whole dimension; irregular
//              blocks time worse than their estimate) by estimate_matmul and takes the lowest score.
// fp8 inputs on v3/v4 use the double-row matmul for each pair of K tiles (2x the TensorE rate); K blocks are then
// an even number of K tiles.
// Not here: transposing A on chip (A is given transposed, [K, M], as nc_matmul's stationary wants it).
#pragma once

#include <cstdint>
#include <source_location>

#include "neuron/isa/builder.h"
#include "neuron/kernels/schedule.h"

namespace nanotrn::neuron {

// Issues the kernel's instructions into `b`. a_t [K,M], bm [K,N] and c [M,N] must be HBM views, c fp32;
// throws nanotrn::Error "[shape]" naming `loc` otherwise. `pipelined` plans its blocking with plan_matmul.
void matmul_kernel(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                   MatmulSchedule schedule, std::source_location loc = std::source_location::current());

// Where the pipelined schedule accumulates over K (see the schedule comment above).
enum class MatmulAccumulate { resident_k, sbuf, psum };

// One blocking of the pipelined schedule. m_cols: a multiple of 128 (<= 512 for resident_k); n_cols: a multiple
// of 512 (512 for resident_k); k_rows: a multiple of 128, even in K tiles for fp8 double-row (the whole K for
// resident_k); for psum (m_cols / 128) x (n_cols / 512) <= the PSUM banks.
struct MatmulBlocking {
  MatmulAccumulate mode = MatmulAccumulate::resident_k;
  int64_t m_cols = 512, n_cols = 512, k_rows = 0;
};

// What a blocking costs by the spec's rates alone (no simulation): busy time of TensorE, of the DMA (HBM bytes
// plus the per-descriptor overhead at the core's DMA bandwidth, plus the fixed DMA latency once per
// double-buffered load block) and of VectorE, the fill before the first matmul, and SBUF bytes per partition.
// max(tensor, dma, vector) + fill is the estimated time (within ~10 % of the timing model on deep-K shapes).
// plan_matmul minimises score() = max(tensor, 1.25 dma, 1.25 vector) + fill + 0.1 (dma + vector): 25 % headroom
// for the bursts of the DMA and VectorE streams, and slack preferred among plans that all keep TensorE busy.
struct MatmulEstimate {
  double tensor_ns = 0, dma_ns = 0, vector_ns = 0, fill_ns = 0, hbm_bytes = 0;
  int64_t sbuf_bytes = 0;
  double score() const;
};

// `in` is the HBM dtype of the inputs (the larger one when A and B differ; DMA bytes are the larger side).
MatmulEstimate estimate_matmul(const NeuronCoreSpec& s, int64_t m, int64_t k, int64_t n, DType in, DType compute,
                               const MatmulBlocking& blk);

// The blocking `pipelined` uses: resident_k when its A block reaches its full width (min(512, M rounded up to
// 128)) in `sbuf_bytes` bytes per partition (the spec's capacity when 0), so shallow shapes keep today's
// schedule; otherwise the best-scoring K-blocked plan (sbuf or psum) that fits.
MatmulBlocking plan_matmul(const NeuronCoreSpec& s, int64_t m, int64_t k, int64_t n, DType in, DType compute,
                           int64_t sbuf_bytes = 0);

// The pipelined schedule with an explicit blocking (tests force one; matmul_kernel plans its own). Throws
// "[shape]" for a blocking that breaks the rules above and "[sbuf-capacity]" when it does not fit.
void matmul_kernel_blocked(KernelBuilder& b, const View& a_t, const View& bm, const View& c, DType compute,
                           const MatmulBlocking& blk, std::source_location loc = std::source_location::current());

}  // namespace nanotrn::neuron
