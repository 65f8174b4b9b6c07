// Device layouts: torch-spyre's default stick layout, views that alias, and
// byte geometry.

#include <gtest/gtest.h>

#include "compiler/ir/layout.h"

namespace spyre::compiler {
namespace {

TEST(Layout, DefaultIsTorchSpyreGenericStickLayout) {
  // [R, C] -> device [ceil(C/64), R, 64]: innermost first R, then the C sticks.
  const Layout two = default_layout({512, 1024});
  EXPECT_EQ(two.order, (std::vector<int>{0, 1}));
  EXPECT_EQ(two.stick, 1);
  EXPECT_EQ(device_size({512, 1024}, two, 64), (std::vector<int64_t>{16, 512, 64}));
  // [A, B, C] -> [B, ceil(C/64), A, 64] (spyre-cli add_3d: layoutDimOrder_ [mb, out, x]).
  const Layout three = default_layout({4, 256, 512});
  EXPECT_EQ(three.order, (std::vector<int>{0, 2, 1}));
  EXPECT_EQ(device_size({4, 256, 512}, three, 64), (std::vector<int64_t>{256, 8, 4, 64}));
  // Size-1 dims do not take part; they go outermost.
  const Layout unit = default_layout({1, 8, 64, 128});
  EXPECT_EQ(unit.order, (std::vector<int>{1, 3, 2, 0}));
  EXPECT_EQ(unit.stick, 3);
}

TEST(Layout, PadsTheStickDimToWholeSticks) {
  const Layout l = default_layout({4, 100});
  EXPECT_EQ(device_size({4, 100}, l, 64), (std::vector<int64_t>{2, 4, 64}));
  const LayoutGeometry g = layout_geometry({4, 100}, l, 64, 2);
  EXPECT_EQ(g.bytes, 2 * 4 * 128);
  EXPECT_EQ(g.stride, (std::vector<int64_t>{128, 512}));
  EXPECT_EQ(g.units, (std::vector<int64_t>{4, 2}));
  // fp32 sticks hold 32 elements.
  EXPECT_EQ(device_size({512, 1024}, default_layout({512, 1024}), 32), (std::vector<int64_t>{32, 512, 32}));
}

TEST(Layout, OtherStickKeepsTheDefaultOrder) {
  const Layout l = layout_with_stick({2, 3, 4}, 1);
  EXPECT_EQ(l.stick, 1);
  EXPECT_EQ(l.order, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(describe_layout(l), "[d0, d1(stick), d2]");
}

TEST(Layout, TransposeIsAPermutedViewOfTheSameBytes) {
  // W (out, in) stored with its sticks along `out` is W^T (in, out) in the
  // layout batchmatmul wants for its KERNEL: sticks along N.
  const Layout w{{1, 0}, 0};
  const Layout wt = permute_layout(w, {1, 0});
  EXPECT_EQ(wt.order, (std::vector<int>{0, 1}));
  EXPECT_EQ(wt.stick, 1);
  EXPECT_EQ(wt, default_layout({4096, 1024}));
}

TEST(Layout, ReshapeAliasesWhenBlocksStayContiguous) {
  // Splitting a stick dim into heads x head_dim (whole sticks) aliases.
  const auto heads = reshape_layout({512, 4096}, default_layout({512, 4096}), {512, 32, 128}, 64);
  ASSERT_TRUE(heads);
  EXPECT_EQ(heads->stick, 2);
  EXPECT_EQ(heads->order, (std::vector<int>{0, 2, 1}));
  // A head_dim that is not whole sticks cannot carry the stick.
  EXPECT_FALSE(reshape_layout({512, 4096}, default_layout({512, 4096}), {512, 128, 32}, 64));
  // Merging dims that are not adjacent in memory (the default layout puts the
  // sticks between d0 and d1) needs a copy; the row-major layout aliases.
  EXPECT_FALSE(reshape_layout({50, 10, 256}, default_layout({50, 10, 256}), {500, 256}, 64));
  const auto merged = reshape_layout({50, 10, 256}, row_major_layout({50, 10, 256}, 2), {500, 256}, 64);
  ASSERT_TRUE(merged);
  EXPECT_EQ(merged->stick, 1);
  // Unit dims come and go freely, but a size-1 stick cannot move.
  EXPECT_TRUE(reshape_layout({64, 128}, default_layout({64, 128}), {1, 64, 128}, 64));
  EXPECT_FALSE(reshape_layout({64, 1}, layout_with_stick({64, 1}, 1), {64}, 64));
}

TEST(Layout, OutermostMovesOneDim) {
  const Layout l = outermost_layout(default_layout({8, 16, 128}), 0);
  EXPECT_EQ(l.order, (std::vector<int>{2, 1, 0}));
}

// Conformance with torch-spyre's tests/tensor/test_tensor_layout.py (bdc905f):
// SpyreTensorLayout's device_size for its default layout (test_default_layout)
// and for each dim order of a 3-D tensor (test_dim_order). torch-spyre's
// dim_order lists the dims outermost first, the stick dim last; as a Layout
// (innermost first) that is [order[0], stick, order[n-2], ..., order[1]].
// test_default_layout's 0-d case has no counterpart: a graph's scalar is [1].
Layout from_dim_order(const std::vector<int>& dim_order) {
  Layout l;
  l.stick = dim_order.back();
  l.order = {dim_order.front(), dim_order.back()};
  for (size_t i = dim_order.size() - 1; i-- > 1;) l.order.push_back(dim_order[i]);
  return l;
}

TEST(LayoutConformance, DeviceSizesAsTorchSpyresTensorLayoutTests) {
  struct Case {
    std::string test;
    std::vector<int64_t> shape;
    std::vector<int> dim_order;  // empty: the default layout
    std::vector<int64_t> device_size;
  };
  const std::vector<Case> cases = {
      {"test_default_layout", {120}, {}, {2, 64}},
      {"test_default_layout", {128}, {}, {2, 64}},
      {"test_default_layout", {512, 240}, {}, {4, 512, 64}},
      {"test_default_layout", {512, 256}, {}, {4, 512, 64}},
      {"test_default_layout", {512, 8, 240}, {}, {8, 4, 512, 64}},
      {"test_default_layout", {512, 8, 256}, {}, {8, 4, 512, 64}},
      {"test_dim_order", {512, 256}, {1, 0}, {8, 256, 64}},
      {"test_dim_order", {512, 8, 256}, {0, 2, 1}, {256, 1, 512, 64}},
      {"test_dim_order", {512, 8, 256}, {1, 0, 2}, {512, 4, 8, 64}},
      {"test_dim_order", {512, 8, 256}, {1, 2, 0}, {256, 8, 8, 64}},
      {"test_dim_order", {512, 8, 256}, {2, 0, 1}, {512, 1, 256, 64}},
      {"test_dim_order", {512, 8, 256}, {2, 1, 0}, {8, 8, 256, 64}},
  };
  for (const auto& c : cases) {
    const Layout l = c.dim_order.empty() ? default_layout(c.shape) : from_dim_order(c.dim_order);
    EXPECT_EQ(device_size(c.shape, l, 64), c.device_size) << c.test << " " << describe_layout(l);
  }
}

}  // namespace
}  // namespace spyre::compiler
