// A driver's own form of a command buffer's commands, made once for all its runs
// (DeviceDriver::prepareSequence).
#pragma once

namespace kiln {

class PreparedSequence {
public:
  virtual ~PreparedSequence() = default;
};

} // namespace kiln
