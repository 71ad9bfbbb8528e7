#include "workload.hpp"

#include <algorithm>
#include <cmath>

namespace bench {

std::unique_ptr<Workload> makeTriad();
std::unique_ptr<Workload> makeSgemmNaive();
std::unique_ptr<Workload> makeSgemmTiled();
std::unique_ptr<Workload> makeHgemmTiled();
std::unique_ptr<Workload> makeHalfConvolution();
std::unique_ptr<Workload> makeReduction();
std::unique_ptr<Workload> makeSubGroupReduction();
std::unique_ptr<Workload> makeWorkGroupReduction();
std::unique_ptr<Workload> makeHistogram();
std::unique_ptr<Workload> makeMandelbrot();
std::unique_ptr<Workload> makeLaunchLatency();
std::unique_ptr<Workload> makeLaunchesInFlight();
std::unique_ptr<Workload> makeKernelSequenceEnqueued();
std::unique_ptr<Workload> makeKernelSequenceRecorded();
std::unique_ptr<Workload> makeComputeFloat();
std::unique_ptr<Workload> makeComputeFloat4();
std::unique_ptr<Workload> makeComputeFloat16();
std::unique_ptr<Workload> makeBlackScholes();
std::unique_ptr<Workload> makeNBody();
std::unique_ptr<Workload> makeSobel();
std::unique_ptr<Workload> makeSpmv();
std::unique_ptr<Workload> makePrefixScan();
std::unique_ptr<Workload> makeSubGroupPrefixScan();
std::unique_ptr<Workload> makeWorkGroupPrefixScan();
std::unique_ptr<Workload> makeConvolution();
std::unique_ptr<Workload> makeBitonicSort();
std::unique_ptr<Workload> makePinnedTransfer();
std::unique_ptr<Workload> makeMappedUpdate();
std::unique_ptr<Workload> makeFillUpdate();
std::unique_ptr<Workload> makeImageHistogram();
std::unique_ptr<Workload> makeImageResize();
std::unique_ptr<Workload> makeImageSrgbRead();
std::unique_ptr<Workload> makeTreeSearchSvm();
std::unique_ptr<Workload> makeTreeSearchBuffer();
std::unique_ptr<Workload> makeSvmAtomicCounter();
std::unique_ptr<Workload> makeSubdivisionDeviceEnqueue();
std::unique_ptr<Workload> makeSubdivisionHostDriven();
std::unique_ptr<Workload> makePipeStream();

std::vector<std::unique_ptr<Workload>> allWorkloads() {
  std::vector<std::unique_ptr<Workload>> workloads;
  workloads.push_back(makeLaunchLatency());
  workloads.push_back(makeLaunchesInFlight());
  workloads.push_back(makeKernelSequenceEnqueued());
  workloads.push_back(makeKernelSequenceRecorded());
  workloads.push_back(makeComputeFloat());
  workloads.push_back(makeComputeFloat4());
  workloads.push_back(makeComputeFloat16());
  workloads.push_back(makeTriad());
  workloads.push_back(makeReduction());
  workloads.push_back(makeSubGroupReduction());
  workloads.push_back(makeWorkGroupReduction());
  workloads.push_back(makePrefixScan());
  workloads.push_back(makeSubGroupPrefixScan());
  workloads.push_back(makeWorkGroupPrefixScan());
  workloads.push_back(makeHistogram());
  workloads.push_back(makeSgemmNaive());
  workloads.push_back(makeSgemmTiled());
  workloads.push_back(makeHgemmTiled());
  workloads.push_back(makeSpmv());
  workloads.push_back(makeTreeSearchBuffer());
  workloads.push_back(makeTreeSearchSvm());
  workloads.push_back(makeSvmAtomicCounter());
  workloads.push_back(makeSubdivisionDeviceEnqueue());
  workloads.push_back(makeSubdivisionHostDriven());
  workloads.push_back(makePipeStream());
  workloads.push_back(makeSobel());
  workloads.push_back(makeConvolution());
  workloads.push_back(makeHalfConvolution());
  workloads.push_back(makeNBody());
  workloads.push_back(makeBlackScholes());
  workloads.push_back(makeMandelbrot());
  workloads.push_back(makeBitonicSort());
  workloads.push_back(makeImageHistogram());
  workloads.push_back(makeImageResize());
  workloads.push_back(makeImageSrgbRead());
  workloads.push_back(makePinnedTransfer());
  workloads.push_back(makeMappedUpdate());
  workloads.push_back(makeFillUpdate());
  return workloads;
}

std::string precisionPrelude(Precision precision) {
  return precision == Precision::Half ? "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
                                        "#define REAL half\n"
                                      : "#define REAL float\n";
}

void requirePrecision(ClSession &session, Precision precision) {
  if (precision == Precision::Float)
    return;
  size_t size = 0;
  clGetDeviceInfo(session.device().device, CL_DEVICE_EXTENSIONS, 0, nullptr, &size);
  std::string extensions(size, '\0');
  clGetDeviceInfo(session.device().device, CL_DEVICE_EXTENSIONS, size, extensions.data(), nullptr);
  if (extensions.find("cl_khr_fp16") == std::string::npos)
    throw ClFailure("the device has no cl_khr_fp16");
}

void roundTo(Precision precision, std::vector<float> &values) {
  if (precision == Precision::Half)
    for (float &value : values)
      value = static_cast<float>(static_cast<_Float16>(value));
}

ClBuffer bufferIn(ClSession &session, Precision precision, const std::vector<float> &values) {
  if (precision == Precision::Float)
    return session.buffer(values);
  std::vector<_Float16> halves(values.begin(), values.end());
  return session.buffer(halves);
}

std::vector<float> readIn(ClSession &session, Precision precision, cl_mem buffer, size_t count) {
  if (precision == Precision::Float)
    return session.read<float>(buffer, count);
  std::vector<_Float16> halves = session.read<_Float16>(buffer, count);
  return {halves.begin(), halves.end()};
}

size_t sizeIn(Precision precision) {
  return precision == Precision::Half ? sizeof(_Float16) : sizeof(float);
}

std::string compareFloats(const std::vector<float> &actual, const std::vector<float> &expected,
                          float tolerance) {
  if (actual.size() != expected.size())
    return "wrong number of values";
  for (size_t i = 0; i < actual.size(); ++i) {
    float allowed = tolerance * std::max(1.0f, std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= allowed))
      return "value " + std::to_string(i) + " is " + std::to_string(actual[i]) + " instead of " +
             std::to_string(expected[i]);
  }
  return "";
}

} // namespace bench
