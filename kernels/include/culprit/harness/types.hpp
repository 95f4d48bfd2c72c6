#pragma once
// Type axes: a benchmark written once for several element types, dispatched on the value of a
// string axis of type names (type_name in benchmark.hpp: f32, f64, i8 ... i64, u8 ... u64):
//
//   void bench_copy(culprit::harness::State& state) {
//     culprit::harness::with_type<float, double>(state, "T", [&](auto tag) {
//       using T = typename decltype(tag)::type;
//       std::vector<T> x(state.get_int("N"));
//       ...
//     });
//   }
//   CULPRIT_BENCHMARK("copy", bench_copy).add_type_axis<float, double>("T");

#include <string>

#include "culprit/harness/benchmark.hpp"
#include "culprit/harness/state.hpp"

namespace culprit::harness {

// Stands for the type T in a generic lambda: decltype(tag)::type.
template <class T> struct TypeTag {
  using type = T;
};

// Calls function(TypeTag<T>{}) for the one T of Types whose name is the value of `axis`. Throws
// CaseError, naming the value and the types handled, when none of Types has that name.
template <class... Types, class Function>
void with_type(const State& state, const std::string& axis, Function&& function) {
  static_assert(sizeof...(Types) > 0, "with_type needs at least one type");
  const std::string& name = state.get_string(axis);
  const bool called =
      ((name == type_name<Types>() && (static_cast<void>(function(TypeTag<Types>{})), true)) ||
       ...);
  if (called)
    return;
  std::string handled;
  ((handled += (handled.empty() ? "" : ", ") + std::string(type_name<Types>())), ...);
  throw CaseError("axis " + axis + " is " + name + ", a type this benchmark does not handle (it " +
                  "handles " + handled + ")");
}

} // namespace culprit::harness
