//===- npy_test.cpp - .npy round trips and rejections ---------------------===//

#include "capture/rt/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <unistd.h>

using namespace capture::rt;
using ::testing::AllOf;
using ::testing::HasSubstr;

namespace {

/// A .npy file as numpy writes it: `header` is the dictionary text, padded
/// here like numpy does (spaces, final newline, 64-byte aligned data).
std::vector<uint8_t> npyBytes(const std::string &dict,
                              const std::vector<uint8_t> &data, int major = 1) {
  size_t preamble = major == 1 ? 10 : 12;
  size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  std::string header = dict;
  header.append(total - preamble - dict.size() - 1, ' ');
  header += '\n';
  std::vector<uint8_t> out = {
      0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  size_t len = header.size();
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
    out.push_back(static_cast<uint8_t>(len >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> f32Bytes(const std::vector<float> &v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

Result<HostTensor> parse(const std::vector<uint8_t> &bytes) {
  return parseNpy(bytes.data(), bytes.size(), "t.npy");
}

std::string errorOf(const std::vector<uint8_t> &bytes) {
  Result<HostTensor> r = parse(bytes);
  EXPECT_TRUE(r.isError()) << "expected a rejection";
  return r.message();
}

void expectRoundTrip(const HostTensor &t) {
  Result<std::vector<uint8_t>> bytes = encodeNpy(t);
  ASSERT_TRUE(bytes.isOk()) << bytes.message();
  EXPECT_EQ(bytes.value().size() % 64, t.data.size() % 64)
      << "data must start 64-byte aligned";
  Result<HostTensor> back = parse(bytes.value());
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->dtype, t.dtype);
  EXPECT_EQ(back->shape, t.shape);
  EXPECT_EQ(back->data, t.data);
}

TEST(Npy, RoundTripsF32) {
  expectRoundTrip(HostTensor::f32({2, 3}, {1.5f, -2, 3, 4, 5e10f, -0.0f}));
}

TEST(Npy, RoundTripsI32) {
  expectRoundTrip(HostTensor::i32({4}, {1, -2, 2147483647, -2147483647 - 1}));
}

TEST(Npy, RoundTripsScalarEmptyAndRank3) {
  expectRoundTrip(HostTensor::f32({}, {42.0f}));
  expectRoundTrip(HostTensor::f32({0, 3}, {}));
  expectRoundTrip(HostTensor::i32({2, 1, 2}, {1, 2, 3, 4}));
}

TEST(Npy, WritesNumpyHeaders) {
  Result<std::vector<uint8_t>> bytes =
      encodeNpy(HostTensor::f32({3}, {1, 2, 3}));
  ASSERT_TRUE(bytes.isOk());
  std::string text(bytes.value().begin(), bytes.value().end());
  EXPECT_EQ(text.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_THAT(text, HasSubstr("{'descr': '<f4', 'fortran_order': False, "
                              "'shape': (3,), }"));
  EXPECT_EQ(bytes.value().size(), 128u + 12u); // 10 + 59 + 1 -> 128
}

TEST(Npy, ReadsWhatNumpyWrites) {
  // Keys in another order, double quotes, no trailing comma, Python 2 'L'.
  std::vector<uint8_t> bytes = npyBytes(
      "{\"shape\": (2L, 1), \"fortran_order\": False, \"descr\": \"<i4\"}",
      {1, 0, 0, 0, 2, 0, 0, 0});
  Result<HostTensor> t = parse(bytes);
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->dtype, DType::I32);
  EXPECT_EQ(t->shape, (std::vector<int64_t>{2, 1}));
  EXPECT_EQ(t->asI32(), (std::vector<int32_t>{1, 2}));
}

TEST(Npy, ReadsVersion2) {
  Result<HostTensor> t = parse(
      npyBytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
               f32Bytes({1, 2}), 2));
  ASSERT_TRUE(t.isOk()) << t.message();
  EXPECT_EQ(t->asF32(), (std::vector<float>{1, 2}));
}

TEST(Npy, FileRoundTrip) {
  std::string path = ::testing::TempDir() + "/capture_npy_test_" +
                     std::to_string(getpid()) + ".npy";
  HostTensor t = HostTensor::f32({2, 2}, {1, 2, 3, 4});
  ASSERT_TRUE(writeNpyFile(path, t).isOk());
  Result<HostTensor> back = readNpyFile(path);
  std::remove(path.c_str());
  ASSERT_TRUE(back.isOk()) << back.message();
  EXPECT_EQ(back->data, t.data);
}

TEST(Npy, MissingFileNamesPath) {
  Result<HostTensor> r = readNpyFile("/nonexistent/dir/x.npy");
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("/nonexistent/dir/x.npy"));
}

const std::string kGood = "{'descr': '<f4', 'fortran_order': False, "
                          "'shape': (2,), }";

TEST(NpyReject, BadMagic) {
  std::vector<uint8_t> bytes = npyBytes(kGood, f32Bytes({1, 2}));
  bytes[1] = 'X';
  EXPECT_THAT(errorOf(bytes), HasSubstr("not a .npy file"));
  EXPECT_THAT(errorOf({}), HasSubstr("not a .npy file"));
}

TEST(NpyReject, Version3) {
  EXPECT_THAT(errorOf(npyBytes(kGood, f32Bytes({1, 2}), 3)),
              AllOf(HasSubstr("version 3.0 is not supported"),
                    HasSubstr("1.0 and 2.0")));
}

TEST(NpyReject, BigEndian) {
  EXPECT_THAT(errorOf(npyBytes("{'descr': '>f4', 'fortran_order': False, "
                               "'shape': (2,), }",
                               f32Bytes({1, 2}))),
              AllOf(HasSubstr("dtype '>f4' is not supported"),
                    HasSubstr("'<f4'"), HasSubstr("'<i4'")));
}

TEST(NpyReject, OtherDtypes) {
  for (const char *descr : {"<f8", "<i8", "|u1", "|b1", "<f2", "<U3"}) {
    std::string dict = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (2,), }";
    EXPECT_THAT(errorOf(npyBytes(dict, std::vector<uint8_t>(16))),
                HasSubstr(std::string("dtype '") + descr + "'"));
  }
  EXPECT_THAT(errorOf(npyBytes("{'descr': [('a', '<f4')], 'fortran_order': "
                               "False, 'shape': (2,), }",
                               f32Bytes({1, 2}))),
              HasSubstr("structured dtypes are not supported"));
}

TEST(NpyReject, FortranOrder) {
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': True, "
                               "'shape': (2,), }",
                               f32Bytes({1, 2}))),
              HasSubstr("Fortran-order arrays are not supported"));
}

TEST(NpyReject, TruncatedData) {
  std::vector<uint8_t> bytes = npyBytes(kGood, f32Bytes({1, 2}));
  bytes.pop_back();
  EXPECT_THAT(errorOf(bytes),
              AllOf(HasSubstr("truncated"), HasSubstr("needs 8 bytes"),
                    HasSubstr("has 7")));
}

TEST(NpyReject, TrailingData) {
  std::vector<uint8_t> bytes = npyBytes(kGood, f32Bytes({1, 2, 3}));
  EXPECT_THAT(errorOf(bytes), HasSubstr("4 bytes after the data"));
}

TEST(NpyReject, EveryTruncatedPrefix) {
  std::vector<uint8_t> bytes = npyBytes(kGood, f32Bytes({1, 2}));
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + n);
    EXPECT_TRUE(parse(prefix).isError()) << "prefix of " << n << " bytes";
  }
}

TEST(NpyReject, MalformedHeaders) {
  EXPECT_THAT(
      errorOf(npyBytes("{'descr': '<f4', 'shape': (2,)}", f32Bytes({1, 2}))),
      HasSubstr("lacks key 'fortran_order'"));
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': Maybe, "
                               "'shape': (2,)}",
                               f32Bytes({1, 2}))),
              HasSubstr("expected True or False"));
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (-2,)}",
                               f32Bytes({1, 2}))),
              HasSubstr("non-negative integer"));
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (2,), 'extra': 1}",
                               f32Bytes({1, 2}))),
              HasSubstr("unknown header key 'extra'"));
  EXPECT_THAT(errorOf(npyBytes("['descr']", {})), HasSubstr("expected '{'"));
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (99999999999999999999,)}",
                               {})),
              HasSubstr("dimension too large"));
}

TEST(NpyReject, HugeShapeDoesNotAllocate) {
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (4000000000, 4000000000, 4000000000)}",
                               {})),
              HasSubstr("too large"));
  EXPECT_THAT(errorOf(npyBytes("{'descr': '<f4', 'fortran_order': False, "
                               "'shape': (1000000000000,)}",
                               {})),
              HasSubstr("truncated"));
}

TEST(NpyReject, HeaderLongerThanFile) {
  std::vector<uint8_t> bytes = npyBytes(kGood, {});
  bytes[8] = 0xff;
  bytes[9] = 0xff;
  EXPECT_THAT(errorOf(bytes), HasSubstr("header of 65535 bytes"));
}

TEST(NpyReject, EncodeChecksDataSize) {
  HostTensor t = HostTensor::f32({2, 2}, {1, 2, 3});
  Result<std::vector<uint8_t>> r = encodeNpy(t);
  ASSERT_TRUE(r.isError());
  EXPECT_THAT(r.message(), HasSubstr("[2, 2] (f32) holds 12 bytes"));
}

} // namespace
