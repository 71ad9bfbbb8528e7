// Which images a command may change. A device that samples a copy of an image's elements (a
// GPU's texture array) remakes the copy only when the image's contents version moved
// (MemObject::contentsVersion()), so every place a write can happen must move it:
//  - when a command finishes (Command::complete()), for the commands that wait for it;
//  - when a device that starts commands before their predecessors finish (a GPU's stream) puts
//    a writing command on its stream, for the commands it puts there next;
//  - when a command buffer's run starts, for writes in a form a device runs on its own.
#pragma once

#include "runtime/scheduling/command.hpp"

namespace kiln {

/// Moves the contents version of each image that `payload` may write: images a kernel gets
/// write_only or read_write, the destination of a CopyRect (image writes and copies), a
/// FillImage, an unmap, and migrated images. (The buffer commands never name an image.) A
/// command buffer's run counts the writes of its commands.
void markWrittenImages(const CommandPayload &payload);

} // namespace kiln
