// A small text embedded in the binary so that `nanotrn speedrun` runs offline before the data pipeline exists.
// Written for this project (no third-party text). The data-pipeline issue replaces it with the Brown corpus.
#pragma once

namespace nanotrn::cli {

inline constexpr const char* kDemoCorpus =
    "The river ran low that summer, and the children of the village walked along its dry stones every morning. "
    "They counted the fish that were left in the deep pools under the willow trees, and they gave each pool a name. "
    "The largest pool was called the Kettle, because the water in it turned round and round like soup. "
    "The smallest was called the Thimble. Some days there were seven fish in the Kettle and two in the Thimble; "
    "some days there were nine and none. The children wrote the numbers in a notebook with a green cover.\n"
    "In the evenings the old miller sat on his step and listened to them read the numbers aloud. He said that a "
    "river is a kind of clock, and that the notebook was a way of reading the clock. When the rain comes back, he "
    "said, the numbers will change again, and you will see the fish move from pool to pool as the water rises. "
    "The children did not believe him at first. They thought a clock was a thing with hands and a face.\n"
    "At the end of August the rain came back. It rained for three days without stopping, and the river rose over "
    "the stones and into the meadow. The children could not count the fish any more, because the pools had joined "
    "into one long brown stream. They wrote in the notebook that the clock had stopped. The miller laughed and said "
    "that the clock had not stopped; it had only started to tell a different kind of time.\n"
    "In the autumn the children went back to school. The teacher asked them what they had learned over the summer, "
    "and they showed her the notebook. She read the numbers carefully and drew a picture of them on the board: a "
    "line that went up and down like the edge of a hill. She said that this was a graph, and that a graph is a way "
    "of seeing many numbers at once. The children looked at the line for a long time. Then one of them said that the "
    "line looked like the river itself, seen from above, and everyone agreed that it did.\n"
    "Years later, when the children had grown up and left the village, the notebook stayed on a shelf in the mill. "
    "The new miller found it one winter and read it by the fire. He did not know who had written it, but he "
    "understood the numbers, and he understood the line that someone had drawn on the last page. In the spring he "
    "went down to the river and counted the fish in the Kettle and the Thimble, and he wrote the numbers on a new "
    "page, under the old ones, so that the clock would keep on being read.\n";

}  // namespace nanotrn::cli
