//===- suggest_test.cpp - "Did you mean" for misspelt names ---------------===//

#include "capture/rt/suggest.h"

#include <gtest/gtest.h>

using namespace capture::rt;

TEST(SuggestName, NearSpellingsAreSuggested) {
  std::vector<std::string_view> names = {"obs", "act", "adv", "ret",
                                         "old_logp"};
  EXPECT_EQ(suggestName("ob", names), " (did you mean 'obs'?)");
  EXPECT_EQ(suggestName("old_lgop", names), " (did you mean 'old_logp'?)");
  EXPECT_EQ(suggestName("OBS", names), " (did you mean 'obs'?)");
  EXPECT_EQ(suggestName("trian", {"train"}), " (did you mean 'train'?)");
  EXPECT_EQ(suggestName("actor.0.wieght", {"actor.0.bias", "actor.0.weight"}),
            " (did you mean 'actor.0.weight'?)");
}

TEST(SuggestName, FarOrExactNamesGetNone) {
  EXPECT_EQ(suggestName("nope", {"predict", "bias", "side"}), "");
  EXPECT_EQ(suggestName("obs", {"obs", "act"}), "");
  EXPECT_EQ(suggestName("x", {}), "");
  EXPECT_EQ(suggestName("", {"a"}), "");
  // One edit in a 6-letter name is near, two are not (limit 6 / 3 = 2).
  EXPECT_EQ(suggestName("weigth", {"weight"}), " (did you mean 'weight'?)");
  EXPECT_EQ(suggestName("wxyght", {"weight"}), " (did you mean 'weight'?)");
  EXPECT_EQ(suggestName("wxyzht", {"weight"}), "");
}

TEST(SuggestName, OneLetterNamesAreNotReplaced) {
  // Any one-letter name is one edit from any other: no guess.
  EXPECT_EQ(suggestName("v", {"w"}), "");
  EXPECT_EQ(suggestName("q", {"x", "b"}), "");
  // Case alone is still a near spelling.
  EXPECT_EQ(suggestName("W", {"w"}), " (did you mean 'w'?)");
}

TEST(SuggestName, TiesGoToTheEarlierCandidate) {
  EXPECT_EQ(suggestName("ab", {"abc", "abd"}), " (did you mean 'abc'?)");
}
