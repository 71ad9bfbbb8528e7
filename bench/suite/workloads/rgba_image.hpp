// The RGBA8 pictures the image workloads read: smooth gradients with noise, as in a photograph,
// so that neighbouring texels differ a little and a histogram has busy and quiet bins.
#pragma once

#include <random>
#include <vector>

namespace bench {

struct Rgba8Image {
  int width = 0, height = 0;
  std::vector<unsigned char> texels; // rows of width * 4 channels, packed
  unsigned char at(int x, int y, int channel) const {
    return texels[(size_t(y) * width + x) * 4 + channel];
  }
};

inline Rgba8Image photoLikeImage(int width, int height, unsigned seed) {
  Rgba8Image image{width, height, std::vector<unsigned char>(size_t(width) * height * 4)};
  std::mt19937 random(seed);
  std::normal_distribution<float> noise(0.0f, 12.0f);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      float u = float(x) / width, v = float(y) / height;
      float base[4] = {200.0f * u + 30.0f, 160.0f * v + 60.0f, 120.0f * (1 - u) * v + 40.0f,
                       255.0f};
      for (int channel = 0; channel < 4; ++channel) {
        float value = base[channel] + (channel < 3 ? noise(random) : 0.0f);
        image.texels[(size_t(y) * width + x) * 4 + channel] =
            static_cast<unsigned char>(value < 0     ? 0
                                       : value > 255 ? 255
                                                     : value);
      }
    }
  return image;
}

} // namespace bench
