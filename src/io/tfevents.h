// TensorBoard's event files, written (`nanotrn train --tensorboard`): what TensorBoard and W&B's TensorBoard sync read.
// The format is public: a TFRecord stream (tensorflow/core/lib/io/record_writer.cc) of Event protocol buffers
// (tensorflow/core/util/event.proto, summary.proto):
//   record  = uint64 length | uint32 masked_crc32c(length bytes) | data | uint32 masked_crc32c(data), little-endian,
//             masked_crc32c(x) = ((c >> 15) | (c << 17)) + 0xa282ead8 over c = CRC-32C (Castagnoli) of x
//   Event   = wall_time (1: double) | step (2: int64 varint) | file_version (3: string, the first event:
//             "brain.Event:2") or summary (5: Summary)
//   Summary = repeated value (1: Value);  Value = tag (1: string) | simple_value (2: float)
//
//   TfEventsWriter w("out/run");                       // out/run/events.out.tfevents.<unix seconds>.<host>.<pid>
//   w.scalars(100, wall_seconds, {{"step/loss", 3.2}, {"step/lr_multiplier", 1.0}});
//
// Records are appended and flushed one by one (a log, like metrics.jsonl: a killed run leaves whole records and at
// most one cut short, which TensorBoard skips). A failed write is an Error naming the file.
// Not here: which scalars a run logs (train/trainer.cpp mirrors metrics.jsonl's numeric fields).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace nanotrn::io {

uint32_t masked_crc32c(const void* data, size_t size);
// One TFRecord: the framing around `data`.
std::string tfrecord(std::string_view data);
// Event protocol buffers, serialized.
std::string event_file_version_proto(double wall_time);
std::string event_scalars_proto(int64_t step, double wall_time,
                                const std::vector<std::pair<std::string, float>>& scalars);

class TfEventsWriter {
 public:
  explicit TfEventsWriter(const std::string& dir);
  void scalars(int64_t step, double wall_time, const std::vector<std::pair<std::string, float>>& values);
  const std::string& path() const { return path_; }

 private:
  void write(const std::string& record);
  std::string path_;
  std::ofstream out_;
};

}  // namespace nanotrn::io
