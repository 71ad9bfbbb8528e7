// Image functions (OpenCL C 3.0 section 6.15.15): reads with and without a sampler (nearest and
// linear filtering, every addressing mode, normalized and unnormalized coordinates), writes,
// and the image queries, for every image type and format Kiln's devices store. An image is a
// descriptor in memory the device reads (KilnImage; runtime/images/image_kernel_descriptor.hpp
// describes the same layout) and a sampler its CLK_* bits: each code generator resolves the
// accessors declared below (compiler/llvm/image_accessors.hpp). Everything else is ordinary
// code, so image accesses vectorize with the rest of a kernel on the CPU; a GPU samples with
// its texture hardware where it made a texture for the image.
#include "kiln_internal.h"
#include "kiln_primitives.h"
#include "srgb_to_linear.h"

typedef struct {
  global uchar *data;
  ulong rowPitch;   // bytes between rows
  ulong layerPitch; // bytes between slices of a 3D image and layers of an array
  int width, height, depth; // 1 where the type has no such dimension
  int arraySize;            // 0 unless an array
  int channelOrder, channelType, elementSize;
  int imageType;
  // A GPU's texture objects for this image, one per sampler (samplerSlot()), 0 where it made
  // none (the table is there on every GPU image); null on a device without texture hardware.
  const global ulong *textures;
} KilnImage;
typedef const global KilnImage *Image;

#define KILN_IMAGE_TYPES(M)                                                                        \
  M(image1d_t)                                                                                     \
  M(image1d_buffer_t)                                                                              \
  M(image1d_array_t) M(image2d_t) M(image2d_array_t) M(image3d_t) M(image2d_depth_t)               \
      M(image2d_array_depth_t)
#define KILN_DESCRIPTOR(T)                                                                         \
  OVL Image __kiln_image_descriptor(read_only T);                                                  \
  OVL Image __kiln_image_descriptor(write_only T);                                                 \
  OVL Image __kiln_image_descriptor(read_write T);
KILN_IMAGE_TYPES(KILN_DESCRIPTOR)
uint __kiln_sampler_bits(sampler_t sampler);

// Texture hardware (a GPU's): __kiln_texture_hardware() is 1 on a device whose code generator
// turns the __kiln_texture_* reads into texture instructions, 0 elsewhere (and those reads
// are then never reached). A read samples `texture` (a texture object) at `coord`, which holds
// the spatial coordinates and then the layer, for an image of `shape` (KILN_SHAPE_*), and
// returns the element's channels in storage order.
int __kiln_texture_hardware(void);
float4 __kiln_texture_f(ulong texture, int shape, float4 coord);
int4 __kiln_texture_i(ulong texture, int shape, float4 coord);
uint4 __kiln_texture_ui(ulong texture, int shape, float4 coord);
#define KILN_SHAPE_1D 1
#define KILN_SHAPE_2D 2
#define KILN_SHAPE_3D 3
#define KILN_SHAPE_1D_ARRAY 5
#define KILN_SHAPE_2D_ARRAY 6

#define KILN_SAMPLERLESS (CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST)

// ---------------------------------------------------------------------------------------------
// Elements: storage channels to (r, g, b, a) and back

static global uchar *texel(Image image, int x, int y, int z) {
  return image->data + (size_t)x * image->elementSize + (size_t)y * image->rowPitch +
         (size_t)z * image->layerPitch;
}

static int channelsOf(int order) {
  switch (order) {
  case CLK_RG:
  case CLK_RA:
  case CLK_RGx:
    return 2;
  case CLK_RGB:
  case CLK_RGBx:
  case CLK_sRGB:
  case CLK_sRGBx:
    return 3;
  case CLK_RGBA:
  case CLK_BGRA:
  case CLK_ARGB:
  case CLK_ABGR:
  case CLK_sRGBA:
  case CLK_sBGRA:
    return 4;
  default:
    return 1;
  }
}

static bool hasAlpha(int order) {
  return order == CLK_A || order == CLK_RA || order == CLK_RGBA || order == CLK_BGRA ||
         order == CLK_ARGB || order == CLK_ABGR || order == CLK_INTENSITY || order == CLK_sRGBA ||
         order == CLK_sBGRA;
}

// Storage channels c (in storage order) as (r, g, b, a); `one` fills a missing alpha.
#define KILN_TO_RGBA(V, S)                                                                         \
  static V toRgba_##V(int order, V c, S one) {                                                     \
    switch (order) {                                                                               \
    case CLK_A:                                                                                    \
      return (V)(0, 0, 0, c.x);                                                                    \
    case CLK_RA:                                                                                   \
      return (V)(c.x, 0, 0, c.y);                                                                  \
    case CLK_RG:                                                                                   \
    case CLK_RGx:                                                                                  \
      return (V)(c.x, c.y, 0, one);                                                                \
    case CLK_RGB:                                                                                  \
    case CLK_RGBx:                                                                                 \
    case CLK_sRGB:                                                                                 \
    case CLK_sRGBx:                                                                                \
      return (V)(c.x, c.y, c.z, one);                                                              \
    case CLK_BGRA:                                                                                 \
    case CLK_sBGRA:                                                                                \
      return c.zyxw;                                                                               \
    case CLK_ARGB:                                                                                 \
      return c.yzwx;                                                                               \
    case CLK_ABGR:                                                                                 \
      return c.wzyx;                                                                               \
    case CLK_INTENSITY:                                                                            \
      return c.xxxx;                                                                               \
    case CLK_LUMINANCE:                                                                            \
      return (V)(c.x, c.x, c.x, one);                                                              \
    case CLK_RGBA:                                                                                 \
    case CLK_sRGBA:                                                                                \
      return c;                                                                                    \
    default: /* R, Rx, DEPTH */                                                                    \
      return (V)(c.x, 0, 0, one);                                                                  \
    }                                                                                              \
  }                                                                                                \
  /* (r, g, b, a) as storage channels: the inverse of toRgba. */                                   \
  static V fromRgba_##V(int order, V color) {                                                      \
    switch (order) {                                                                               \
    case CLK_A:                                                                                    \
      return color.wwww;                                                                           \
    case CLK_RA:                                                                                   \
      return color.xwww;                                                                           \
    case CLK_BGRA:                                                                                 \
    case CLK_sBGRA:                                                                                \
      return color.zyxw;                                                                           \
    case CLK_ARGB:                                                                                 \
      return color.wxyz;                                                                           \
    case CLK_ABGR:                                                                                 \
      return color.wzyx;                                                                           \
    default:                                                                                       \
      return color;                                                                                \
    }                                                                                              \
  }
KILN_TO_RGBA(float4, float)
KILN_TO_RGBA(int4, int)
KILN_TO_RGBA(uint4, uint)

static float linearToSrgb(float value) {
  value = fmin(fmax(value, 0.0f), 1.0f);
  return value <= 0.0031308f ? value * 12.92f : 1.055f * pow(value, 1.0f / 2.4f) - 0.055f;
}

/// The four bytes at `p`, whatever its alignment, as the channels of a 4 x 8-bit element: one
/// 32-bit load, which lanes that read consecutive texels share as one vector load, where a load
/// per channel would be a gather per channel.
static uint4 loadBytes4(const global uchar *p) {
  uint word;
  __builtin_memcpy(&word, p, sizeof word);
  return (uint4)(word, word >> 8, word >> 16, word >> 24) & 0xFFu;
}

/// The element at `p` as normalized or floating-point channels, in storage order.
static float4 loadFloatChannels(Image image, const global uchar *p) {
  float4 c = 0.0f;
  int n = channelsOf(image->channelOrder);
  switch (image->channelType) {
  case CLK_UNORM_INT8:
    if (n == 4)
      return convert_float4(loadBytes4(p)) / 255.0f;
    for (int i = 0; i < n; i++)
      c[i] = p[i] / 255.0f;
    return c;
  case CLK_UNORM_INT16:
    for (int i = 0; i < n; i++)
      c[i] = ((const global ushort *)p)[i] / 65535.0f;
    return c;
  case CLK_SNORM_INT8:
    if (n == 4)
      return fmax(convert_float4(as_int4(loadBytes4(p) << 24) >> 24) / 127.0f, -1.0f);
    for (int i = 0; i < n; i++)
      c[i] = fmax(((const global char *)p)[i] / 127.0f, -1.0f);
    return c;
  case CLK_SNORM_INT16:
    for (int i = 0; i < n; i++)
      c[i] = fmax(((const global short *)p)[i] / 32767.0f, -1.0f);
    return c;
  case CLK_HALF_FLOAT:
    for (int i = 0; i < n; i++)
      c[i] = vload_half(i, (const global half *)p);
    return c;
  case CLK_UNORM_SHORT_565: {
    uint v = *(const global ushort *)p;
    return (float4)((v >> 11) / 31.0f, ((v >> 5) & 63) / 63.0f, (v & 31) / 31.0f, 1.0f);
  }
  case CLK_UNORM_SHORT_555: {
    uint v = *(const global ushort *)p;
    return (float4)(((v >> 10) & 31) / 31.0f, ((v >> 5) & 31) / 31.0f, (v & 31) / 31.0f, 1.0f);
  }
  case CLK_UNORM_INT_101010: {
    uint v = *(const global uint *)p;
    return (float4)(((v >> 20) & 1023) / 1023.0f, ((v >> 10) & 1023) / 1023.0f,
                    (v & 1023) / 1023.0f, 1.0f);
  }
  default: // CLK_FLOAT
    for (int i = 0; i < n; i++)
      c[i] = ((const global float *)p)[i];
    return c;
  }
}

static bool isSrgb(int order) {
  return order == CLK_sRGBA || order == CLK_sBGRA || order == CLK_sRGB || order == CLK_sRGBx;
}

/// sRGB colour channels (normalized bytes, as loaded) as linear values: a table lookup per byte
/// rather than a pow() per channel, which made sRGB reads 4-8 times slower on the CPU and 1.7
/// times on the GPU. sRGB images are CLK_UNORM_INT8, so each channel is some n/255 rounded, and
/// n comes back exactly.
static float3 srgbToLinear(float3 channels) {
  // The channels lie in [0, 1]: plain casts round them (convert_int3_rte's handling of values
  // out of range and NaN cost a GPU three times the instructions of the lookups).
  float3 scaled = channels * 255.0f + 0.5f;
  return (float3)(kSrgbToLinear[(int)scaled.x], kSrgbToLinear[(int)scaled.y],
                  kSrgbToLinear[(int)scaled.z]);
}

/// A colour read as (r, g, b, a) of normalized stored channels, as read_imagef returns it:
/// linear, for an image of an sRGB order.
static float4 linearColor(int order, float4 color) {
  if (isSrgb(order))
    color.xyz = srgbToLinear(color.xyz);
  return color;
}

static float4 loadFloat(Image image, const global uchar *p) {
  int order = image->channelOrder;
  return linearColor(order, toRgba_float4(order, loadFloatChannels(image, p), 1.0f));
}

static int4 loadInt(Image image, const global uchar *p) {
  int4 c = 0;
  int n = channelsOf(image->channelOrder);
  if (n == 4 && image->channelType == CLK_SIGNED_INT8)
    return toRgba_int4(image->channelOrder, as_int4(loadBytes4(p) << 24) >> 24, 1);
  for (int i = 0; i < n; i++)
    c[i] = image->channelType == CLK_SIGNED_INT8    ? ((const global char *)p)[i]
           : image->channelType == CLK_SIGNED_INT16 ? ((const global short *)p)[i]
                                                    : ((const global int *)p)[i];
  return toRgba_int4(image->channelOrder, c, 1);
}

static uint4 loadUint(Image image, const global uchar *p) {
  uint4 c = 0;
  int n = channelsOf(image->channelOrder);
  if (n == 4 && image->channelType == CLK_UNSIGNED_INT8)
    return toRgba_uint4(image->channelOrder, loadBytes4(p), 1u);
  for (int i = 0; i < n; i++)
    c[i] = image->channelType == CLK_UNSIGNED_INT8    ? p[i]
           : image->channelType == CLK_UNSIGNED_INT16 ? ((const global ushort *)p)[i]
                                                      : ((const global uint *)p)[i];
  return toRgba_uint4(image->channelOrder, c, 1u);
}

static void storeFloat(Image image, global uchar *p, float4 color) {
  int order = image->channelOrder;
  int n = channelsOf(order);
  float4 c = fromRgba_float4(order, color);
  switch (image->channelType) {
  case CLK_UNORM_INT8:
    for (int i = 0; i < n; i++)
      p[i] = convert_uchar_sat_rte(c[i] * 255.0f);
    return;
  case CLK_UNORM_INT16:
    for (int i = 0; i < n; i++)
      ((global ushort *)p)[i] = convert_ushort_sat_rte(c[i] * 65535.0f);
    return;
  case CLK_SNORM_INT8:
    for (int i = 0; i < n; i++)
      ((global char *)p)[i] = convert_char_sat_rte(c[i] * 127.0f);
    return;
  case CLK_SNORM_INT16:
    for (int i = 0; i < n; i++)
      ((global short *)p)[i] = convert_short_sat_rte(c[i] * 32767.0f);
    return;
  case CLK_HALF_FLOAT:
    for (int i = 0; i < n; i++)
      vstore_half_rte(c[i], i, (global half *)p);
    return;
  case CLK_UNORM_SHORT_565:
    *(global ushort *)p = (ushort)(convert_uint_sat_rte(c.x * 31.0f) << 11 |
                                   convert_uint_sat_rte(c.y * 63.0f) << 5 |
                                   convert_uint_sat_rte(c.z * 31.0f));
    return;
  case CLK_UNORM_SHORT_555:
    *(global ushort *)p = (ushort)(min(convert_uint_sat_rte(c.x * 31.0f), 31u) << 10 |
                                   min(convert_uint_sat_rte(c.y * 31.0f), 31u) << 5 |
                                   min(convert_uint_sat_rte(c.z * 31.0f), 31u));
    return;
  case CLK_UNORM_INT_101010:
    *(global uint *)p = min(convert_uint_sat_rte(c.x * 1023.0f), 1023u) << 20 |
                        min(convert_uint_sat_rte(c.y * 1023.0f), 1023u) << 10 |
                        min(convert_uint_sat_rte(c.z * 1023.0f), 1023u);
    return;
  default: // CLK_FLOAT
    for (int i = 0; i < n; i++)
      ((global float *)p)[i] = c[i];
    return;
  }
}

static void storeInt(Image image, global uchar *p, int4 color) {
  int4 c = fromRgba_int4(image->channelOrder, color);
  for (int i = 0; i < channelsOf(image->channelOrder); i++) {
    if (image->channelType == CLK_SIGNED_INT8)
      ((global char *)p)[i] = convert_char_sat(c[i]);
    else if (image->channelType == CLK_SIGNED_INT16)
      ((global short *)p)[i] = convert_short_sat(c[i]);
    else
      ((global int *)p)[i] = c[i];
  }
}

static void storeUint(Image image, global uchar *p, uint4 color) {
  uint4 c = fromRgba_uint4(image->channelOrder, color);
  for (int i = 0; i < channelsOf(image->channelOrder); i++) {
    if (image->channelType == CLK_UNSIGNED_INT8)
      p[i] = convert_uchar_sat(c[i]);
    else if (image->channelType == CLK_UNSIGNED_INT16)
      ((global ushort *)p)[i] = convert_ushort_sat(c[i]);
    else
      ((global uint *)p)[i] = c[i];
  }
}

// ---------------------------------------------------------------------------------------------
// Coordinates: addressing and filtering (section 8.2 of the OpenCL C specification)

/// A coordinate's texel index along an axis of `n` texels, for nearest filtering. With
/// CLK_ADDRESS_CLAMP, -1 and n stand for the border.
static int nearestIndex(float s, int n, uint sampler) {
  uint addressing = sampler & 0xE;
  if (sampler & CLK_NORMALIZED_COORDS_TRUE) {
    if (addressing == CLK_ADDRESS_REPEAT) {
      int i = (int)floor((s - floor(s)) * n);
      return i > n - 1 ? i - n : i;
    }
    if (addressing == CLK_ADDRESS_MIRRORED_REPEAT) {
      float mirrored = fabs(s - 2.0f * rint(0.5f * s));
      return min((int)floor(mirrored * n), n - 1);
    }
    s *= n;
  }
  int i = (int)floor(fmin(fmax(s, -2.0f), (float)n + 1.0f));
  return addressing == CLK_ADDRESS_CLAMP ? clamp(i, -1, n) : clamp(i, 0, n - 1);
}

/// The two texel indices and the weight of the second, for linear filtering.
static int2 linearIndices(float s, int n, uint sampler, float *weight) {
  uint addressing = sampler & 0xE;
  bool normalized = sampler & CLK_NORMALIZED_COORDS_TRUE;
  float u;
  if (normalized && addressing == CLK_ADDRESS_REPEAT)
    u = (s - floor(s)) * n;
  else if (normalized && addressing == CLK_ADDRESS_MIRRORED_REPEAT)
    u = fabs(s - 2.0f * rint(0.5f * s)) * n;
  else
    u = fmin(fmax(normalized ? s * n : s, -2.0f), (float)n + 2.0f);
  float below = floor(u - 0.5f);
  *weight = (u - 0.5f) - below;
  int2 i = (int2)((int)below, (int)below + 1);
  if (normalized && addressing == CLK_ADDRESS_REPEAT) {
    i.x = i.x < 0 ? i.x + n : i.x;
    i.y = i.y > n - 1 ? i.y - n : i.y;
    return i;
  }
  if (addressing == CLK_ADDRESS_CLAMP)
    return clamp(i, -1, n);
  return clamp(i, 0, n - 1);
}

static int layerIndex(float coordinate, int layers) {
  return clamp((int)rint(coordinate), 0, layers - 1);
}

static bool outside(Image image, int dims, int x, int y, int z) {
  return x < 0 || x >= image->width || (dims > 1 && (y < 0 || y >= image->height)) ||
         (dims > 2 && (z < 0 || z >= image->depth));
}

#define KILN_BORDER_float4(image) ((float4)(0.0f, 0.0f, 0.0f, hasAlpha(image->channelOrder) ? 0.0f : 1.0f))
#define KILN_BORDER_int4(image) ((int4)(0, 0, 0, hasAlpha(image->channelOrder) ? 0 : 1))
#define KILN_BORDER_uint4(image) ((uint4)(0, 0, 0, hasAlpha(image->channelOrder) ? 0 : 1))

/// Whether the texel indices a sampler's addressing mode gives may lie outside the image: every
/// mode but CLK_ADDRESS_CLAMP_TO_EDGE, whose indices are clamped inside whatever the coordinate
/// (NaN and infinities included). CLK_ADDRESS_CLAMP has its border; CLK_ADDRESS_NONE's reads
/// outside are undefined but must not touch memory outside the image; the wrapping modes give
/// indices outside for coordinates that are not finite.
static bool mayIndexOutside(uint sampler) {
  return (sampler & 0xE) != CLK_ADDRESS_CLAMP_TO_EDGE;
}

// The texel at (x, y, z) of an image of `dims` spatial dimensions whose layer is `layer`, or
// the border color outside.
#define KILN_FETCH(V, LOAD)                                                                        \
  static V fetch_##V(Image image, uint sampler, int dims, int x, int y, int z, int layer) {        \
    if (mayIndexOutside(sampler) && outside(image, dims, x, y, z))                                 \
      return KILN_BORDER_##V(image);                                                               \
    return LOAD(image, texel(image, x, dims > 1 ? y : 0, dims > 2 ? z : layer));                   \
  }
KILN_FETCH(float4, loadFloat)
KILN_FETCH(int4, loadInt)
KILN_FETCH(uint4, loadUint)

/// The layer a coordinate names in an array (dims spatial dimensions, then the layer).
static int layerOf(Image image, int dims, float4 coord) {
  return image->arraySize == 0 ? 0 : layerIndex(coord[dims], image->arraySize);
}

#define KILN_SAMPLE_NEAREST(V)                                                                     \
  static V nearest_##V(Image image, int dims, uint sampler, float4 coord) {                        \
    int x = nearestIndex(coord.x, image->width, sampler);                                          \
    int y = dims > 1 ? nearestIndex(coord.y, image->height, sampler) : 0;                          \
    int z = dims > 2 ? nearestIndex(coord.z, image->depth, sampler) : 0;                           \
    return fetch_##V(image, sampler, dims, x, y, z, layerOf(image, dims, coord));                  \
  }
KILN_SAMPLE_NEAREST(float4)
KILN_SAMPLE_NEAREST(int4)
KILN_SAMPLE_NEAREST(uint4)

static float4 linear(Image image, int dims, uint sampler, float4 coord) {
  int layer = layerOf(image, dims, coord);
  float a, b = 0.0f, c = 0.0f;
  int2 i = linearIndices(coord.x, image->width, sampler, &a);
  int2 j = dims > 1 ? linearIndices(coord.y, image->height, sampler, &b) : (int2)(0);
  int2 k = dims > 2 ? linearIndices(coord.z, image->depth, sampler, &c) : (int2)(0);
  float4 sum = 0.0f;
  for (int dz = 0; dz < (dims > 2 ? 2 : 1); dz++)
    for (int dy = 0; dy < (dims > 1 ? 2 : 1); dy++)
      for (int dx = 0; dx < 2; dx++) {
        float w = (dx ? a : 1.0f - a) * (dims > 1 ? (dy ? b : 1.0f - b) : 1.0f) *
                  (dims > 2 ? (dz ? c : 1.0f - c) : 1.0f);
        sum += w * fetch_float4(image, sampler, dims, dx ? i.y : i.x, dy ? j.y : j.x,
                                dz ? k.y : k.x, layer);
      }
  return sum;
}

static float4 sampleFloat(Image image, int dims, uint sampler, float4 coord) {
  if ((sampler & 0x30) == CLK_FILTER_LINEAR)
    return linear(image, dims, sampler, coord);
  return nearest_float4(image, dims, sampler, coord);
}

// ---------------------------------------------------------------------------------------------
// The software paths, out of line on a GPU: its code generator keeps the functions whose names
// begin with __kiln_outline_ as calls, so that a kernel that reads or writes many images carries
// one copy of each path instead of one per access (inlined, a kernel reading 127 images made
// 9 MB of PTX, which the driver took minutes to compile). The CPU inlines them as everything.

// noinline: so that building the library does not inline them either.
#define KILN_OUTLINE __attribute__((noinline))
KILN_OUTLINE float4 __kiln_outline_sample_float4(Image image, int dims, uint sampler, float4 coord) {
  return sampleFloat(image, dims, sampler, coord);
}
#define KILN_OUTLINE_NEAREST(V)                                                                    \
  KILN_OUTLINE V __kiln_outline_nearest_##V(Image image, int dims, uint sampler, float4 coord) {                \
    return nearest_##V(image, dims, sampler, coord);                                               \
  }
KILN_OUTLINE_NEAREST(float4)
KILN_OUTLINE_NEAREST(int4)
KILN_OUTLINE_NEAREST(uint4)
#define KILN_OUTLINE_STORE(V, NAME)                                                                \
  KILN_OUTLINE void __kiln_outline_store_##V(Image image, global uchar *p, V color) { NAME(image, p, color); }
KILN_OUTLINE_STORE(float4, storeFloat)
KILN_OUTLINE_STORE(int4, storeInt)
KILN_OUTLINE_STORE(uint4, storeUint)

// ---------------------------------------------------------------------------------------------
// Sampling with texture hardware

/// The index of the sampler of CLK_* bits `sampler` among a GPU image's textures
/// (runtime/images/image_kernel_descriptor.hpp computes the same).
static uint samplerSlot(uint sampler) {
  return (sampler & 1) + 2 * ((sampler & 0xE) >> 1) + ((sampler & 0x30) == CLK_FILTER_LINEAR ? 10 : 0);
}

/// The texture that samples `image` as `sampler` says, or 0 when the device has no texture
/// for it (the read is then done in software).
static ulong textureFor(Image image, uint sampler) {
  if (!__kiln_texture_hardware())
    return 0;
  return image->textures[samplerSlot(sampler)];
}

// How the channels a texture returns (in storage order) become (r, g, b, a), as toRgba() says
// with a switch, but as a table: a read then needs no branch on the channel order, so the reads
// of a loop stay in one block, whose texture fetches the GPU overlaps, and the table's entry for
// an image is loaded once before the loop. For each of r, g, b, a (four bits each, r lowest):
// the stored channel it takes, 4 for zero, 5 for one. Indexed by the order less CLK_R.
#define KILN_SWIZZLE(r, g, b, a) ((r) | (g) << 4 | (b) << 8 | (a) << 12)
constant uint kTextureSwizzles[] = {
    KILN_SWIZZLE(0, 4, 4, 5), // CLK_R
    KILN_SWIZZLE(4, 4, 4, 0), // CLK_A
    KILN_SWIZZLE(0, 1, 4, 5), // CLK_RG
    KILN_SWIZZLE(0, 4, 4, 1), // CLK_RA
    KILN_SWIZZLE(0, 1, 2, 5), // CLK_RGB
    KILN_SWIZZLE(0, 1, 2, 3), // CLK_RGBA
    KILN_SWIZZLE(2, 1, 0, 3), // CLK_BGRA
    KILN_SWIZZLE(1, 2, 3, 0), // CLK_ARGB
    KILN_SWIZZLE(0, 0, 0, 0), // CLK_INTENSITY
    KILN_SWIZZLE(0, 0, 0, 5), // CLK_LUMINANCE
    KILN_SWIZZLE(0, 4, 4, 5), // CLK_Rx
    KILN_SWIZZLE(0, 1, 4, 5), // CLK_RGx
    KILN_SWIZZLE(0, 1, 2, 5), // CLK_RGBx
    KILN_SWIZZLE(0, 4, 4, 5), // CLK_DEPTH
    KILN_SWIZZLE(0, 4, 4, 5), // CLK_DEPTH_STENCIL
    KILN_SWIZZLE(0, 1, 2, 5), // CLK_sRGB
    KILN_SWIZZLE(0, 1, 2, 5), // CLK_sRGBx
    KILN_SWIZZLE(0, 1, 2, 3), // CLK_sRGBA
    KILN_SWIZZLE(2, 1, 0, 3), // CLK_sBGRA
    KILN_SWIZZLE(3, 2, 1, 0), // CLK_ABGR
};
static uint textureSwizzleOf(int order) {
  return kTextureSwizzles[clamp(order - CLK_R, 0, (int)(sizeof(kTextureSwizzles) / sizeof(uint)) - 1)];
}
// Selects by the bits of the code, never by comparisons with each value, which the optimizer
// would turn back into a switch. RGBA (and sRGBA), the usual orders, take the stored channels as
// they are: the image's order is the same for every work-item, so that test costs a GPU one
// uniform branch, which a loop's versioning (texture_loop_versioning.cpp) takes out of the loop,
// where the selects cost ten instructions a read. (Tested on the order itself, not on its
// table entry, so that the loop's copy for RGBA knows the order, and its sRGB test folds.)
#define KILN_TEXTURE_RGBA(V, S)                                                                    \
  static S pickChannel_##V(V c, uint from, S one) {                                                \
    S low = (from & 1) ? c.y : c.x;                                                                \
    S high = (from & 1) ? c.w : c.z;                                                               \
    S stored = (from & 2) ? high : low;                                                            \
    S fixed = (from & 1) ? one : (S)0;                                                             \
    return (from & 4) ? fixed : stored;                                                            \
  }                                                                                                \
  static V textureRgba_##V(int order, uint swizzle, V c, S one) {                                  \
    if (order == CLK_RGBA || order == CLK_sRGBA)                                                   \
      return c;                                                                                    \
    return (V)(pickChannel_##V(c, swizzle, one), pickChannel_##V(c, swizzle >> 4, one),            \
               pickChannel_##V(c, swizzle >> 8, one), pickChannel_##V(c, swizzle >> 12, one));     \
  }
KILN_TEXTURE_RGBA(float4, float)
KILN_TEXTURE_RGBA(int4, int)
KILN_TEXTURE_RGBA(uint4, uint)

static bool isArrayShape(int shape) {
  return shape == KILN_SHAPE_1D_ARRAY || shape == KILN_SHAPE_2D_ARRAY;
}

/// The element `texture` samples at `coord`, as (r, g, b, a). An array's layer is the
/// nearest whole one, clamped to the array, as in software. The texture of an sRGB image holds
/// its bytes and returns them normalized: the table makes them linear (the texture units' own
/// conversion is not exact).
#define KILN_TEXTURE_READ(V, SUFFIX, ONE, FINISH)                                                  \
  static V textureRead_##V(Image image, int order, uint swizzle, ulong texture, int dims,          \
                           int shape, float4 coord) {                                              \
    if (isArrayShape(shape))                                                                       \
      coord[dims] = (float)layerOf(image, dims, coord);                                            \
    V stored = __kiln_texture_##SUFFIX(texture, shape, coord);                                     \
    return FINISH(order, textureRgba_##V(order, swizzle, stored, ONE));                            \
  }
#define KILN_AS_READ(order, color) (color)
KILN_TEXTURE_READ(float4, f, 1.0f, linearColor)
KILN_TEXTURE_READ(int4, i, 1, KILN_AS_READ)
KILN_TEXTURE_READ(uint4, ui, 1u, KILN_AS_READ)

/// The texture linear filtering fetches its texels through: nearest, unnormalized coordinates,
/// the border outside the image (CLK_ADDRESS_CLAMP); 0 where the image has none.
static ulong texelTextureFor(Image image) {
  return textureFor(image, CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP | CLK_FILTER_NEAREST);
}

/// The centre of texel (i, j, k) of a linear filter's neighbourhood, in the texture's
/// unnormalized coordinates, with the array's layer after the spatial coordinates.
static float4 texelCentre(int i, int j, int k, int dims, int shape, float layer) {
  float4 centre = (float4)(i + 0.5f, j + 0.5f, k + 0.5f, 0.0f);
  if (isArrayShape(shape))
    centre[dims] = layer;
  return centre;
}

static float4 linearTexel(float4 texel, bool srgb) {
  if (srgb)
    texel.xyz = srgbToLinear(texel.xyz);
  return texel;
}

/// Linear filtering where the texture units' own filter does not serve (device_image.cpp says
/// where): the texel indices and weights are the software's, and each texel is fetched by the
/// texture units at its centre, which reads it through their cache, converts its format and
/// gives the border outside the image. All fetches come first, so that they overlap; the texels
/// are weighed in storage order (sRGB ones made linear first), in the software's order, and the
/// sum swizzled once.
static float4 textureLinear(Image image, int order, uint swizzle, ulong texels, int dims,
                            int shape, uint sampler, float4 coord) {
  float layer = isArrayShape(shape) ? (float)layerOf(image, dims, coord) : 0.0f;
  float a, b = 0.0f, c = 0.0f;
  int2 i = linearIndices(coord.x, image->width, sampler, &a);
  int2 j = dims > 1 ? linearIndices(coord.y, image->height, sampler, &b) : (int2)(0);
  int2 k = dims > 2 ? linearIndices(coord.z, image->depth, sampler, &c) : (int2)(0);
  bool srgb = isSrgb(order);
#define KILN_FETCH_AT(x, y, z) __kiln_texture_f(texels, shape, texelCentre(x, y, z, dims, shape, layer))
  float4 sum = 0.0f;
  if (dims == 1) {
    float4 t0 = KILN_FETCH_AT(i.x, 0, 0), t1 = KILN_FETCH_AT(i.y, 0, 0);
    sum += (1.0f - a) * linearTexel(t0, srgb);
    sum += a * linearTexel(t1, srgb);
  } else if (dims == 2) {
    float4 t00 = KILN_FETCH_AT(i.x, j.x, 0), t10 = KILN_FETCH_AT(i.y, j.x, 0);
    float4 t01 = KILN_FETCH_AT(i.x, j.y, 0), t11 = KILN_FETCH_AT(i.y, j.y, 0);
    sum += (1.0f - a) * (1.0f - b) * linearTexel(t00, srgb);
    sum += a * (1.0f - b) * linearTexel(t10, srgb);
    sum += (1.0f - a) * b * linearTexel(t01, srgb);
    sum += a * b * linearTexel(t11, srgb);
  } else {
    float4 t000 = KILN_FETCH_AT(i.x, j.x, k.x), t100 = KILN_FETCH_AT(i.y, j.x, k.x);
    float4 t010 = KILN_FETCH_AT(i.x, j.y, k.x), t110 = KILN_FETCH_AT(i.y, j.y, k.x);
    float4 t001 = KILN_FETCH_AT(i.x, j.x, k.y), t101 = KILN_FETCH_AT(i.y, j.x, k.y);
    float4 t011 = KILN_FETCH_AT(i.x, j.y, k.y), t111 = KILN_FETCH_AT(i.y, j.y, k.y);
    sum += (1.0f - a) * (1.0f - b) * (1.0f - c) * linearTexel(t000, srgb);
    sum += a * (1.0f - b) * (1.0f - c) * linearTexel(t100, srgb);
    sum += (1.0f - a) * b * (1.0f - c) * linearTexel(t010, srgb);
    sum += a * b * (1.0f - c) * linearTexel(t110, srgb);
    sum += (1.0f - a) * (1.0f - b) * c * linearTexel(t001, srgb);
    sum += a * (1.0f - b) * c * linearTexel(t101, srgb);
    sum += (1.0f - a) * b * c * linearTexel(t011, srgb);
    sum += a * b * c * linearTexel(t111, srgb);
  }
#undef KILN_FETCH_AT
  return textureRgba_float4(order, swizzle, sum, 1.0f);
}

// A sampled read of V by `image` and the sampler of CLK_* bits `bits`: through the hardware when
// the image has a texture for the sampler, else in software (the function SOFTWARE). The channel
// order and its swizzle are read before the choice, so that a loop's reads of one image find
// them before the loop.
#define KILN_SAMPLED(V, SOFTWARE, DIMS, SHAPE, IMAGE, BITS, COORD)                                 \
  Image descriptor = IMAGE;                                                                        \
  uint bits = BITS;                                                                                \
  float4 position = COORD;                                                                         \
  int order = descriptor->channelOrder;                                                            \
  uint swizzle = textureSwizzleOf(order);                                                          \
  ulong texture = textureFor(descriptor, bits);                                                    \
  return texture ? textureRead_##V(descriptor, order, swizzle, texture, DIMS, SHAPE, position)     \
                 : SOFTWARE(descriptor, DIMS, bits, position);

/// read_imagef at float coordinates with linear filtering: by the texture units' own filter where
/// the image has a texture for the sampler (the device gives one only where that filter meets
/// the specification's precision, device_image.cpp), else weighed here from texels fetched
/// through the texture that fetches texels, else in software.
static float4 sampleLinearAt(Image image, int dims, int shape, uint sampler, float4 coord) {
  int order = image->channelOrder;
  uint swizzle = textureSwizzleOf(order);
  ulong filter = textureFor(image, sampler);
  if (filter)
    return textureRead_float4(image, order, swizzle, filter, dims, shape, coord);
  ulong texels = texelTextureFor(image);
  return texels ? textureLinear(image, order, swizzle, texels, dims, shape, sampler, coord)
                : __kiln_outline_sample_float4(image, dims, sampler, coord);
}

/// read_imagef at float coordinates.
static float4 sampleFloatAt(Image image, int dims, int shape, uint sampler, float4 coord) {
  if ((sampler & 0x30) == CLK_FILTER_LINEAR)
    return sampleLinearAt(image, dims, shape, sampler, coord);
  KILN_SAMPLED(float4, __kiln_outline_sample_float4, dims, shape, image, sampler, coord)
}

// ---------------------------------------------------------------------------------------------
// The builtins, for each image type: T, its spatial dimensions, its int and float coordinates
// and how they widen to four components.

#define KILN_WIDEN_1(c) ((float4)((float)(c), 0.0f, 0.0f, 0.0f))
#define KILN_WIDEN_2(c) ((float4)(convert_float2(c), 0.0f, 0.0f))
#define KILN_WIDEN_4(c) (convert_float4(c))
#define KILN_WIDENF_1(c) ((float4)((c), 0.0f, 0.0f, 0.0f))
#define KILN_WIDENF_2(c) ((float4)((c), 0.0f, 0.0f))
#define KILN_WIDENF_4(c) (c)
#define KILN_INT_COORD_1 int
#define KILN_INT_COORD_2 int2
#define KILN_INT_COORD_4 int4
#define KILN_FLOAT_COORD_1 float
#define KILN_FLOAT_COORD_2 float2
#define KILN_FLOAT_COORD_4 float4

#define KILN_READS(T, DIMS, W, SHAPE)                                                              \
  OVL float4 read_imagef(read_only T image, sampler_t sampler, KILN_FLOAT_COORD_##W coord) {       \
    return sampleFloatAt(__kiln_image_descriptor(image), DIMS, SHAPE, __kiln_sampler_bits(sampler),   \
                         KILN_WIDENF_##W(coord));                                                  \
  }                                                                                                \
  OVL float4 read_imagef(read_only T image, sampler_t sampler, KILN_INT_COORD_##W coord) {         \
    KILN_SAMPLED(float4, __kiln_outline_nearest_float4, DIMS, SHAPE, __kiln_image_descriptor(image), __kiln_sampler_bits(sampler), KILN_WIDEN_##W(coord))       \
  }                                                                                                \
  OVL int4 read_imagei(read_only T image, sampler_t sampler, KILN_FLOAT_COORD_##W coord) {         \
    KILN_SAMPLED(int4, __kiln_outline_nearest_int4, DIMS, SHAPE, __kiln_image_descriptor(image), __kiln_sampler_bits(sampler), KILN_WIDENF_##W(coord))          \
  }                                                                                                \
  OVL int4 read_imagei(read_only T image, sampler_t sampler, KILN_INT_COORD_##W coord) {           \
    KILN_SAMPLED(int4, __kiln_outline_nearest_int4, DIMS, SHAPE, __kiln_image_descriptor(image), __kiln_sampler_bits(sampler), KILN_WIDEN_##W(coord))           \
  }                                                                                                \
  OVL uint4 read_imageui(read_only T image, sampler_t sampler, KILN_FLOAT_COORD_##W coord) {       \
    KILN_SAMPLED(uint4, __kiln_outline_nearest_uint4, DIMS, SHAPE, __kiln_image_descriptor(image), __kiln_sampler_bits(sampler), KILN_WIDENF_##W(coord))        \
  }                                                                                                \
  OVL uint4 read_imageui(read_only T image, sampler_t sampler, KILN_INT_COORD_##W coord) {         \
    KILN_SAMPLED(uint4, __kiln_outline_nearest_uint4, DIMS, SHAPE, __kiln_image_descriptor(image), __kiln_sampler_bits(sampler), KILN_WIDEN_##W(coord))         \
  }                                                                                                \
  OVL half4 read_imageh(read_only T image, sampler_t sampler, KILN_FLOAT_COORD_##W coord) {        \
    return convert_half4(read_imagef(image, sampler, coord));                                      \
  }                                                                                                \
  OVL half4 read_imageh(read_only T image, sampler_t sampler, KILN_INT_COORD_##W coord) {          \
    return convert_half4(read_imagef(image, sampler, coord));                                      \
  }

#define KILN_SAMPLERLESS_READS(ACCESS, T, DIMS, W)                                                 \
  OVL float4 read_imagef(ACCESS T image, KILN_INT_COORD_##W coord) {                              \
    return __kiln_outline_nearest_float4(__kiln_image_descriptor(image), DIMS, KILN_SAMPLERLESS,                  \
                          KILN_WIDEN_##W(coord));                                                  \
  }                                                                                                \
  OVL int4 read_imagei(ACCESS T image, KILN_INT_COORD_##W coord) {                                 \
    return __kiln_outline_nearest_int4(__kiln_image_descriptor(image), DIMS, KILN_SAMPLERLESS,                    \
                        KILN_WIDEN_##W(coord));                                                    \
  }                                                                                                \
  OVL uint4 read_imageui(ACCESS T image, KILN_INT_COORD_##W coord) {                               \
    return __kiln_outline_nearest_uint4(__kiln_image_descriptor(image), DIMS, KILN_SAMPLERLESS,                   \
                         KILN_WIDEN_##W(coord));                                                   \
  }                                                                                                \
  OVL half4 read_imageh(ACCESS T image, KILN_INT_COORD_##W coord) {                                \
    return convert_half4(read_imagef(image, coord));                                               \
  }

/// The element a write at an integer coordinate goes to, or null outside the image.
static global uchar *writeTarget(Image image, int dims, float4 coord) {
  int x = (int)coord.x, y = dims > 1 ? (int)coord.y : 0, z = dims > 2 ? (int)coord.z : 0;
  int layer = image->arraySize == 0 ? 0 : (int)coord[dims];
  if (outside(image, dims, x, y, z) || (image->arraySize != 0 && (layer < 0 || layer >= image->arraySize)))
    return 0;
  return texel(image, x, y, dims > 2 ? z : layer);
}

#define KILN_WRITES(ACCESS, T, DIMS, W)                                                            \
  OVL void write_imagef(ACCESS T image, KILN_INT_COORD_##W coord, float4 color) {                  \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    global uchar *target = writeTarget(descriptor, DIMS, KILN_WIDEN_##W(coord));                   \
    if (target)                                                                                    \
      __kiln_outline_store_float4(descriptor, target, color);                                                       \
  }                                                                                                \
  OVL void write_imagei(ACCESS T image, KILN_INT_COORD_##W coord, int4 color) {                    \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    global uchar *target = writeTarget(descriptor, DIMS, KILN_WIDEN_##W(coord));                   \
    if (target)                                                                                    \
      __kiln_outline_store_int4(descriptor, target, color);                                                         \
  }                                                                                                \
  OVL void write_imageui(ACCESS T image, KILN_INT_COORD_##W coord, uint4 color) {                  \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    global uchar *target = writeTarget(descriptor, DIMS, KILN_WIDEN_##W(coord));                   \
    if (target)                                                                                    \
      __kiln_outline_store_uint4(descriptor, target, color);                                                        \
  }                                                                                                \
  OVL void write_imageh(ACCESS T image, KILN_INT_COORD_##W coord, half4 color) {                   \
    write_imagef(image, coord, convert_float4(color));                                             \
  }

#define KILN_QUERIES(ACCESS, T)                                                                    \
  OVL int get_image_width(ACCESS T image) { return __kiln_image_descriptor(image)->width; }        \
  OVL int get_image_channel_data_type(ACCESS T image) {                                            \
    return __kiln_image_descriptor(image)->channelType;                                            \
  }                                                                                                \
  OVL int get_image_channel_order(ACCESS T image) {                                                \
    return __kiln_image_descriptor(image)->channelOrder;                                           \
  }
#define KILN_HEIGHT(ACCESS, T)                                                                     \
  OVL int get_image_height(ACCESS T image) { return __kiln_image_descriptor(image)->height; }
#define KILN_ARRAY_SIZE(ACCESS, T)                                                                 \
  OVL size_t get_image_array_size(ACCESS T image) {                                                \
    return __kiln_image_descriptor(image)->arraySize;                                              \
  }
#define KILN_DIM2(ACCESS, T)                                                                       \
  OVL int2 get_image_dim(ACCESS T image) {                                                         \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    return (int2)(descriptor->width, descriptor->height);                                          \
  }

#define KILN_EACH_ACCESS(M, ...) M(read_only, __VA_ARGS__) M(write_only, __VA_ARGS__) M(read_write, __VA_ARGS__)
#define KILN_READABLE(M, ...) M(read_only, __VA_ARGS__) M(read_write, __VA_ARGS__)
#define KILN_WRITABLE(M, ...) M(write_only, __VA_ARGS__) M(read_write, __VA_ARGS__)

// Sampled reads.
KILN_READS(image1d_t, 1, 1, KILN_SHAPE_1D)
KILN_READS(image1d_array_t, 1, 2, KILN_SHAPE_1D_ARRAY)
KILN_READS(image2d_t, 2, 2, KILN_SHAPE_2D)
KILN_READS(image2d_array_t, 2, 4, KILN_SHAPE_2D_ARRAY)
KILN_READS(image3d_t, 3, 4, KILN_SHAPE_3D)
// Reads without a sampler and writes.
KILN_READABLE(KILN_SAMPLERLESS_READS, image1d_t, 1, 1)
KILN_READABLE(KILN_SAMPLERLESS_READS, image1d_buffer_t, 1, 1)
KILN_READABLE(KILN_SAMPLERLESS_READS, image1d_array_t, 1, 2)
KILN_READABLE(KILN_SAMPLERLESS_READS, image2d_t, 2, 2)
KILN_READABLE(KILN_SAMPLERLESS_READS, image2d_array_t, 2, 4)
KILN_READABLE(KILN_SAMPLERLESS_READS, image3d_t, 3, 4)
KILN_WRITABLE(KILN_WRITES, image1d_t, 1, 1)
KILN_WRITABLE(KILN_WRITES, image1d_buffer_t, 1, 1)
KILN_WRITABLE(KILN_WRITES, image1d_array_t, 1, 2)
KILN_WRITABLE(KILN_WRITES, image2d_t, 2, 2)
KILN_WRITABLE(KILN_WRITES, image2d_array_t, 2, 4)
KILN_WRITABLE(KILN_WRITES, image3d_t, 3, 4)

// Depth images: one channel, read and written as a float.
#define KILN_DEPTH(T, DIMS, W)                                                                     \
  OVL float read_imagef(read_only T image, sampler_t sampler, KILN_FLOAT_COORD_##W coord) {        \
    return __kiln_outline_sample_float4(__kiln_image_descriptor(image), DIMS, __kiln_sampler_bits(sampler),         \
                       KILN_WIDENF_##W(coord))                                                     \
        .x;                                                                                        \
  }                                                                                                \
  OVL float read_imagef(read_only T image, sampler_t sampler, KILN_INT_COORD_##W coord) {          \
    return __kiln_outline_nearest_float4(__kiln_image_descriptor(image), DIMS, __kiln_sampler_bits(sampler),      \
                          KILN_WIDEN_##W(coord))                                                   \
        .x;                                                                                        \
  }
#define KILN_DEPTH_ACCESS(ACCESS, T, DIMS, W)                                                      \
  OVL float read_imagef(ACCESS T image, KILN_INT_COORD_##W coord) {                                \
    return __kiln_outline_nearest_float4(__kiln_image_descriptor(image), DIMS, KILN_SAMPLERLESS,                  \
                          KILN_WIDEN_##W(coord))                                                   \
        .x;                                                                                        \
  }
#define KILN_DEPTH_WRITE(ACCESS, T, DIMS, W)                                                       \
  OVL void write_imagef(ACCESS T image, KILN_INT_COORD_##W coord, float depth) {                   \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    global uchar *target = writeTarget(descriptor, DIMS, KILN_WIDEN_##W(coord));                   \
    if (target)                                                                                    \
      __kiln_outline_store_float4(descriptor, target, (float4)(depth, 0.0f, 0.0f, 1.0f));                           \
  }
KILN_DEPTH(image2d_depth_t, 2, 2)
KILN_DEPTH(image2d_array_depth_t, 2, 4)
KILN_READABLE(KILN_DEPTH_ACCESS, image2d_depth_t, 2, 2)
KILN_READABLE(KILN_DEPTH_ACCESS, image2d_array_depth_t, 2, 4)
KILN_WRITABLE(KILN_DEPTH_WRITE, image2d_depth_t, 2, 2)
KILN_WRITABLE(KILN_DEPTH_WRITE, image2d_array_depth_t, 2, 4)

// Queries.
#define KILN_ALL_QUERIES(ACCESS, T) KILN_QUERIES(ACCESS, T)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image1d_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image1d_buffer_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image1d_array_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image2d_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image2d_array_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image3d_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image2d_depth_t)
KILN_EACH_ACCESS(KILN_ALL_QUERIES, image2d_array_depth_t)
KILN_EACH_ACCESS(KILN_HEIGHT, image2d_t)
KILN_EACH_ACCESS(KILN_HEIGHT, image2d_array_t)
KILN_EACH_ACCESS(KILN_HEIGHT, image3d_t)
KILN_EACH_ACCESS(KILN_HEIGHT, image2d_depth_t)
KILN_EACH_ACCESS(KILN_HEIGHT, image2d_array_depth_t)
KILN_EACH_ACCESS(KILN_ARRAY_SIZE, image1d_array_t)
KILN_EACH_ACCESS(KILN_ARRAY_SIZE, image2d_array_t)
KILN_EACH_ACCESS(KILN_ARRAY_SIZE, image2d_array_depth_t)
KILN_EACH_ACCESS(KILN_DIM2, image2d_t)
KILN_EACH_ACCESS(KILN_DIM2, image2d_array_t)
KILN_EACH_ACCESS(KILN_DIM2, image2d_depth_t)
KILN_EACH_ACCESS(KILN_DIM2, image2d_array_depth_t)

#define KILN_3D_QUERIES(ACCESS, T)                                                                 \
  OVL int get_image_depth(ACCESS T image) { return __kiln_image_descriptor(image)->depth; }        \
  OVL int4 get_image_dim(ACCESS T image) {                                                         \
    Image descriptor = __kiln_image_descriptor(image);                                             \
    return (int4)(descriptor->width, descriptor->height, descriptor->depth, 0);                    \
  }
KILN_EACH_ACCESS(KILN_3D_QUERIES, image3d_t)

// ---------------------------------------------------------------------------------------------
// Sub-group block reads and writes of 2D images (cl_intel_subgroups): the image as rows of
// bytes. The sub-group's block starts at byte coord.x of row coord.y; lane i holds the 4, 2, 1 or
// 8 bytes at coord.x + i * that size, and element k of a vector is row coord.y + k. Bytes
// outside the image read as 0 and are not written.

static global uchar *block_address(Image image, int2 coord, int row, uint bytes) {
  long x = (long)coord.x + (long)__kiln_sub_group_local_id() * bytes;
  long y = (long)coord.y + row;
  long rowBytes = (long)image->width * image->elementSize;
  if (x < 0 || x + bytes > rowBytes || y < 0 || y >= image->height)
    return 0;
  return image->data + (size_t)y * image->rowPitch + (size_t)x;
}

#define KILN_IMAGE_BLOCK(S, SUFFIX)                                                        \
  static S block_read_##SUFFIX(Image image, int2 coord, int row) {                                 \
    const global S *at = (const global S *)block_address(image, coord, row, sizeof(S));            \
    return at ? *at : (S)0;                                                                        \
  }                                                                                                \
  static void block_write_##SUFFIX(Image image, int2 coord, int row, S value) {                    \
    global S *at = (global S *)block_address(image, coord, row, sizeof(S));                        \
    if (at)                                                                                        \
      *at = value;                                                                                 \
  }
KILN_IMAGE_BLOCK(uint, ui)
KILN_IMAGE_BLOCK(ushort, us)
KILN_IMAGE_BLOCK(uchar, uc)
KILN_IMAGE_BLOCK(ulong, ul)

// N elements: rows coord.y to coord.y + N - 1.
#define KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, ACCESS, N)                                        \
  OVL S##N intel_sub_group_block_read##NAME##N(ACCESS image2d_t image, int2 coord) {               \
    Image d = __kiln_image_descriptor(image);                                                      \
    S##N value;                                                                                    \
    for (int k = 0; k < N; ++k)                                                                    \
      value[k] = block_read_##SUFFIX(d, coord, k);                                                 \
    return value;                                                                                  \
  }
#define KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, ACCESS, N)                                       \
  OVL void intel_sub_group_block_write##NAME##N(ACCESS image2d_t image, int2 coord, S##N data) {   \
    Image d = __kiln_image_descriptor(image);                                                      \
    for (int k = 0; k < N; ++k)                                                                    \
      block_write_##SUFFIX(d, coord, k, data[k]);                                                  \
  }
#define KILN_IMAGE_BLOCK_READS(S, SUFFIX, NAME, ACCESS)                                            \
  OVL S intel_sub_group_block_read##NAME(ACCESS image2d_t image, int2 coord) {                     \
    return block_read_##SUFFIX(__kiln_image_descriptor(image), coord, 0);                          \
  }                                                                                                \
  KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, ACCESS, 2)                                              \
  KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, ACCESS, 4)                                              \
  KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, ACCESS, 8)
#define KILN_IMAGE_BLOCK_WRITES(S, SUFFIX, NAME, ACCESS)                                           \
  OVL void intel_sub_group_block_write##NAME(ACCESS image2d_t image, int2 coord, S data) {         \
    block_write_##SUFFIX(__kiln_image_descriptor(image), coord, 0, data);                          \
  }                                                                                                \
  KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, ACCESS, 2)                                             \
  KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, ACCESS, 4)                                             \
  KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, ACCESS, 8)
#define KILN_IMAGE_BLOCK_IO(S, SUFFIX, NAME)                                                       \
  KILN_IMAGE_BLOCK_READS(S, SUFFIX, NAME, read_only)                                               \
  KILN_IMAGE_BLOCK_READS(S, SUFFIX, NAME, read_write)                                              \
  KILN_IMAGE_BLOCK_WRITES(S, SUFFIX, NAME, write_only)                                             \
  KILN_IMAGE_BLOCK_WRITES(S, SUFFIX, NAME, read_write)
// 16 elements of the 8- and 16-bit sizes (and, as the header declares them, of 64 bits).
#define KILN_IMAGE_BLOCK_IO_16(S, SUFFIX, NAME)                                                    \
  KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, read_only, 16)                                          \
  KILN_IMAGE_BLOCK_READ_N(S, SUFFIX, NAME, read_write, 16)                                         \
  KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, write_only, 16)                                        \
  KILN_IMAGE_BLOCK_WRITE_N(S, SUFFIX, NAME, read_write, 16)
KILN_IMAGE_BLOCK_IO(uint, ui, )
KILN_IMAGE_BLOCK_IO(uint, ui, _ui)
KILN_IMAGE_BLOCK_IO(ushort, us, _us)
KILN_IMAGE_BLOCK_IO_16(ushort, us, _us)
KILN_IMAGE_BLOCK_IO(uchar, uc, _uc)
KILN_IMAGE_BLOCK_IO_16(uchar, uc, _uc)
KILN_IMAGE_BLOCK_IO(ulong, ul, _ul)
KILN_IMAGE_BLOCK_IO_16(ulong, ul, _ul)
// The header also declares the 32-bit writes on read-only images.
KILN_IMAGE_BLOCK_WRITES(uint, ui, _ui, read_only)
