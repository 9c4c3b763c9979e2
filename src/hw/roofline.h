// Closed-form cost models at device level: the roofline of one kernel and a ring all-reduce over links.
//
//   double s = roofline_seconds(flops, bytes, peak_flops, bytes_per_s);       // max(compute, memory)
//   double c = ring_allreduce_seconds(bytes, ranks, bytes_per_s, hop_s);      // 2(n-1)/n * bytes / bw + 2(n-1) hops
//
// Ring all-reduce (reduce-scatter then all-gather): each of n ranks sends and receives 2(n-1)/n of the buffer over
// its slowest link, in 2(n-1) steps that each pay one hop latency. n = 1 costs nothing. This is the textbook ring
// (e.g. Patarasuk & Yuan 2009); the Neuron runtime also has Mesh/RDH/KangaRing variants [INTRA] not modelled here.
// Not here: overlap with compute (src/predict/), topology discovery.
#pragma once

#include <cstdint>

namespace nanotrn::hw {

double roofline_seconds(double flops, double bytes, double peak_flops, double bytes_per_s);
double ring_allreduce_seconds(double bytes, int64_t ranks, double bytes_per_s, double hop_latency_s);

}  // namespace nanotrn::hw
