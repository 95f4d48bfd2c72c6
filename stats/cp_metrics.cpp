#include "stats/cp_metrics.hpp"

#include <algorithm>
#include <set>

namespace culprit::stats {

namespace {

std::set<std::size_t> with_zero(const std::vector<std::size_t>& locations) {
  std::set<std::size_t> set(locations.begin(), locations.end());
  set.insert(0);
  return set;
}

std::size_t distance(std::size_t a, std::size_t b) {
  return a > b ? a - b : b - a;
}

std::vector<std::size_t> matched(const std::set<std::size_t>& truth,
                                 std::set<std::size_t> predictions, std::size_t margin) {
  std::vector<std::size_t> found;
  for (const std::size_t tau : truth) {
    // The nearest unused prediction within the margin, the smaller one on ties (metrics.py sorts
    // (distance, location) pairs).
    auto best = predictions.end();
    for (auto it = predictions.begin(); it != predictions.end(); ++it)
      if (distance(tau, *it) <= margin &&
          (best == predictions.end() || distance(tau, *it) < distance(tau, *best)))
        best = it;
    if (best == predictions.end())
      continue;
    found.push_back(tau);
    predictions.erase(best);
  }
  return found;
}

// The segments of 0..n-1 cut at `cuts`, as [begin, end) pairs.
std::vector<std::pair<std::size_t, std::size_t>> segments(const std::vector<std::size_t>& cuts,
                                                          std::size_t n) {
  std::set<std::size_t> inside;
  for (const std::size_t cut : cuts)
    if (cut > 0 && cut < n)
      inside.insert(cut);
  std::vector<std::pair<std::size_t, std::size_t>> result;
  std::size_t begin = 0;
  for (const std::size_t cut : inside) {
    result.emplace_back(begin, cut);
    begin = cut;
  }
  result.emplace_back(begin, n);
  return result;
}

double cover_single(const std::vector<std::pair<std::size_t, std::size_t>>& predicted,
                    const std::vector<std::pair<std::size_t, std::size_t>>& truth, std::size_t n) {
  double sum = 0;
  for (const auto& [begin, end] : truth) {
    double best = 0;
    for (const auto& [p_begin, p_end] : predicted) {
      const std::size_t low = std::max(begin, p_begin);
      const std::size_t high = std::min(end, p_end);
      const std::size_t intersection = high > low ? high - low : 0;
      const std::size_t union_size = (end - begin) + (p_end - p_begin) - intersection;
      best = std::max(best, static_cast<double>(intersection) / static_cast<double>(union_size));
    }
    sum += static_cast<double>(end - begin) * best;
  }
  return sum / static_cast<double>(n);
}

} // namespace

std::vector<std::size_t> true_positives(const std::vector<std::size_t>& truth,
                                        const std::vector<std::size_t>& predictions,
                                        std::size_t margin) {
  return matched(std::set<std::size_t>(truth.begin(), truth.end()),
                 std::set<std::size_t>(predictions.begin(), predictions.end()), margin);
}

F1Score f1_score(const std::vector<std::vector<std::size_t>>& annotations,
                 const std::vector<std::size_t>& predictions, std::size_t margin) {
  const auto predicted = with_zero(predictions);
  std::set<std::size_t> all;
  double recall = 0;
  for (const auto& annotator : annotations) {
    const auto truth = with_zero(annotator);
    all.insert(truth.begin(), truth.end());
    recall += static_cast<double>(matched(truth, predicted, margin).size()) /
              static_cast<double>(truth.size());
  }
  F1Score score;
  score.recall = annotations.empty() ? 0 : recall / static_cast<double>(annotations.size());
  score.precision = static_cast<double>(matched(all, predicted, margin).size()) /
                    static_cast<double>(predicted.size());
  // metrics.py: P R / (alpha R + (1 - alpha) P) with alpha = 1/2. P and R are never both zero:
  // index 0 is in every set.
  const double denominator = 0.5 * score.recall + 0.5 * score.precision;
  score.f1 = denominator > 0 ? score.precision * score.recall / denominator : 0;
  return score;
}

double covering(const std::vector<std::vector<std::size_t>>& annotations,
                const std::vector<std::size_t>& predictions, std::size_t n) {
  if (annotations.empty() || n == 0)
    return 0;
  const auto predicted = segments(predictions, n);
  double sum = 0;
  for (const auto& annotator : annotations)
    sum += cover_single(predicted, segments(annotator, n), n);
  return sum / static_cast<double>(annotations.size());
}

} // namespace culprit::stats
