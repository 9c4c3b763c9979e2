// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78): the checksum safetensors files carry per tensor.
//
//   uint32_t c = crc32c(bytes.data(), bytes.size());            // one buffer
//   uint32_t d = crc32c(tail, n, crc32c(head, m));              // continued: equals crc32c of head followed by tail
//
// Detects every single-bit and every burst error of up to 32 bits. crc32c("123456789") == 0xE3069283.
#pragma once

#include <cstddef>
#include <cstdint>

namespace nanotrn {

uint32_t crc32c(const void* data, size_t size, uint32_t previous = 0);

}  // namespace nanotrn
