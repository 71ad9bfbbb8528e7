// The settings table (support/settings.hpp) is README.md's configuration table: the same
// variables, in the same order, with the same words; and a switch reads as its table says.
#include "support/settings.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace kiln {
namespace {

struct Row {
  std::string name, meaning;
};

/// The rows of README.md's configuration table: "| `NAME` | meaning |".
std::vector<Row> readmeRows() {
  std::ifstream readme(KILN_README_PATH);
  std::vector<Row> rows;
  for (std::string line; std::getline(readme, line);) {
    if (!line.starts_with("| `KILN_"))
      continue;
    size_t nameEnd = line.find('`', 3);
    size_t meaningStart = line.find("| ", nameEnd) + 2;
    size_t meaningEnd = line.rfind(" |");
    rows.push_back(
        {line.substr(3, nameEnd - 3), line.substr(meaningStart, meaningEnd - meaningStart)});
  }
  return rows;
}

TEST(SettingsTable, IsReadmesConfigurationTable) {
  std::vector<Row> rows = readmeRows();
  std::span<const SettingInfo> settings = allSettings();
  ASSERT_EQ(rows.size(), settings.size()) << "README.md at " << KILN_README_PATH;
  for (size_t index = 0; index < rows.size(); ++index) {
    EXPECT_EQ(rows[index].name, settings[index].name);
    EXPECT_EQ(rows[index].meaning, settings[index].meaning) << rows[index].name;
  }
}

TEST(SettingsTable, SwitchesTurnOffWithTheUsualWords) {
  const char *name = settingInfo(Setting::Cache).name.data();
  const char *previous = std::getenv(name);
  std::string saved = previous ? previous : "";
  unsetenv(name);
  EXPECT_TRUE(settingEnabled(Setting::Cache, true));
  EXPECT_FALSE(settingEnabled(Setting::Cache, false));
  for (const char *off : {"0", "off", "false", "no"}) {
    setenv(name, off, 1);
    EXPECT_FALSE(settingEnabled(Setting::Cache, true)) << off;
  }
  setenv(name, "1", 1);
  EXPECT_TRUE(settingEnabled(Setting::Cache, false));
  EXPECT_EQ(settingValue(Setting::Cache), "1");
  if (previous)
    setenv(name, saved.c_str(), 1);
  else
    unsetenv(name);
}

} // namespace
} // namespace kiln
