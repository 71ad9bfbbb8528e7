// The LLVM headers that most of libkiln-compiler.so's files include, compiled once into a
// precompiled header for the whole library (src/CMakeLists.txt). Files still include what they
// use: this list only makes the build faster. Adding a header that few files need (PassBuilder.h)
// made the build slower.
#pragma once

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Support/raw_ostream.h"
