// Float axes and type axes: how they are declared, named, read back, chosen by suite files, and
// dispatched to a generic lambda.

#include <cstdint>
#include <string>
#include <vector>

#include <culprit/harness.hpp>
#include <gtest/gtest.h>

#include "tests/kernels/harness_test_support.hpp"

namespace {

using kernels_testing::names;

namespace harness = culprit::harness;

// Runs `function` on a state for `one`.
template <class Function> void with_state(const harness::Case& one, Function&& function) {
  const harness::RunSettings settings;
  harness::HostCacheFlusher flusher(64);
  harness::State state(one, settings, flusher);
  function(state);
}

TEST(HarnessFloatAxes, ValuesAreNamedByTheirShortestTextAndReadBack) {
  harness::Registry registry;
  registry.add("scale", [](harness::State&) {}).add_float_axis("alpha", {0.5, 1.0, 1e-5, -2.25});
  EXPECT_NO_THROW(registry.validate());
  const auto cases = registry.default_cases();
  EXPECT_EQ(names(cases), (std::vector<std::string>{"scale/alpha=0.5", "scale/alpha=1",
                                                    "scale/alpha=1e-05", "scale/alpha=-2.25"}));
  std::vector<double> read;
  for (const auto& one : cases)
    with_state(one, [&](harness::State& state) { read.push_back(state.get_float("alpha")); });
  EXPECT_EQ(read, (std::vector<double>{0.5, 1.0, 1e-5, -2.25}));
}

TEST(HarnessFloatAxes, SuitesGiveThemLikeIntegerAxesAndOneValueIsOneCase) {
  harness::Registry registry;
  registry.add("scale", [](harness::State&) {})
      .add_int_axis("N", {16})
      .add_float_axis("alpha", {0.5});
  const auto cases = harness::suite_cases(
      registry, harness::parse_suite("scale alpha=0.25,2.0,0.250 N=8\n", "t.suite"), "t.suite");
  EXPECT_EQ(names(cases), (std::vector<std::string>{"scale/N=8,alpha=0.25", "scale/N=8,alpha=2"}));
  for (const char* bad : {"scale alpha=fast", "scale alpha=nan", "scale alpha=inf",
                          "scale alpha=1e999", "scale alpha=0.5x"}) {
    try {
      harness::suite_cases(registry, harness::parse_suite(bad, "t.suite"), "t.suite");
      ADD_FAILURE() << bad;
    } catch (const harness::UsageError& error) {
      EXPECT_NE(std::string(error.what()).find("t.suite:1: axis alpha="), std::string::npos)
          << error.what();
      EXPECT_NE(std::string(error.what()).find("is not a finite decimal number"), std::string::npos)
          << error.what();
    }
  }
}

TEST(HarnessFloatAxes, AFloatIsReadOnlyFromAFloatAxis) {
  harness::Registry registry;
  registry.add("mixed", [](harness::State&) {})
      .add_int_axis("N", {4})
      .add_float_axis("alpha", {0.5})
      .add_string_axis("mode", {"fast"});
  with_state(registry.default_cases().front(), [](harness::State& state) {
    EXPECT_EQ(state.get_float("alpha"), 0.5);
    EXPECT_THROW(state.get_float("N"), harness::CaseError);
    EXPECT_THROW(state.get_float("mode"), harness::CaseError);
    EXPECT_THROW(state.get_float("beta"), harness::CaseError);
  });
  harness::Registry infinite;
  infinite.add("bad", [](harness::State&) {}).add_float_axis("x", {1.0 / 0.0});
  EXPECT_THROW(infinite.validate(), harness::UsageError);
}

TEST(HarnessTypeAxes, TypeAxesAreStringAxesOfTypeNames) {
  harness::Registry registry;
  registry.add("copy", [](harness::State&) {})
      .add_type_axis<float, double, std::int32_t, std::int64_t>("T");
  EXPECT_EQ(names(registry.default_cases()),
            (std::vector<std::string>{"copy/T=f32", "copy/T=f64", "copy/T=i32", "copy/T=i64"}));
  EXPECT_THROW(harness::suite_cases(registry, harness::parse_suite("copy T=f16", "t"), "t"),
               harness::UsageError);
}

TEST(HarnessTypeAxes, WithTypeCallsTheLambdaWithTheNamedType) {
  harness::Registry registry;
  registry.add("copy", [](harness::State&) {})
      .add_type_axis<float, double, std::int32_t, std::int64_t>("T");
  std::vector<std::size_t> sizes;
  std::vector<bool> floating;
  for (const auto& one : registry.default_cases()) {
    with_state(one, [&](harness::State& state) {
      harness::with_type<float, double, std::int32_t, std::int64_t>(state, "T", [&](auto tag) {
        using T = typename decltype(tag)::type;
        sizes.push_back(sizeof(T));
        floating.push_back(std::is_floating_point_v<T>);
      });
    });
  }
  EXPECT_EQ(sizes, (std::vector<std::size_t>{4, 8, 4, 8}));
  EXPECT_EQ(floating, (std::vector<bool>{true, true, false, false}));
}

TEST(HarnessTypeAxes, ATypeTheDispatchDoesNotHandleIsACaseError) {
  harness::Registry registry;
  registry.add("copy", [](harness::State&) {}).add_type_axis<float, double>("T");
  with_state(registry.default_cases().back(), [](harness::State& state) {
    try {
      harness::with_type<float, std::int32_t>(state, "T", [](auto) {});
      FAIL() << "no error";
    } catch (const harness::CaseError& error) {
      EXPECT_STREQ(error.what(),
                   "axis T is f64, a type this benchmark does not handle (it handles f32, i32)");
    }
    EXPECT_THROW(harness::with_type<float>(state, "U", [](auto) {}), harness::CaseError);
  });
}

} // namespace
