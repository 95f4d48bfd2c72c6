#pragma once
// What the drivers (bisect, track, triage) build commits through: the real one wraps Builder,
// tests and simulations give a fake, and the build pool builds a round's commits at once.

#include <span>
#include <string>
#include <utility>

#include "core/build/builder.hpp"
#include "core/util/error.hpp"

namespace culprit::build {

// Builds a commit; the real one wraps Builder, tests and simulations give a fake.
class BuildProvider {
public:
  BuildProvider() = default;
  virtual ~BuildProvider() = default;
  BuildProvider(const BuildProvider&) = delete;
  BuildProvider& operator=(const BuildProvider&) = delete;
  BuildProvider(BuildProvider&&) = delete;
  BuildProvider& operator=(BuildProvider&&) = delete;
  virtual Result<BuildResult> build(const std::string& commit, const std::string& rev) = 0;
  // Builds several commits (commit, rev) ahead of build(), at once when the provider can; build()
  // then finds them done. The default does nothing: build() builds them one by one.
  virtual Status prepare(std::span<const std::pair<std::string, std::string>> /*commits*/) {
    return {};
  }
};

class BuilderProvider final : public BuildProvider {
public:
  BuilderProvider(Builder& builder, BuildOptions options)
      : m_builder(builder), m_options(std::move(options)) {}
  Result<BuildResult> build(const std::string& commit, const std::string& rev) override {
    return m_builder.build(commit, rev, m_options);
  }

private:
  Builder& m_builder;
  BuildOptions m_options;
};

} // namespace culprit::build
