// TileSettingsModel: one row per tile site (analysis/tuning/TileSites.h) of the
// traced kernel, with its shape, what it governs, its buffer use on the
// machine and whether it fits. Plain data in (setSites), no painting: the
// FitRole tells a delegate how to colour a row.
//
// Editing the Shape column parses the text once into a TileShape
// (compiler/settings/TileSettings.h), checks it (TileBufferChecker) and, when
// the compiler would accept it, emits tileShapeEditRequested with the typed
// shape instead of changing the model: the owner routes it through the
// settings document (undo), which then calls setSettings with the new
// tile_settings. Empty text asks to remove the project's value (nullopt).
#pragma once

#include "analysis/tuning/TileBufferCheck.h"
#include "analysis/tuning/TileSites.h"
#include "widgets/models/TitledTableModel.h"

#include <memory>
#include <vector>

namespace pto::widgets {

class TileSettingsModel : public TitledTableModel {
  Q_OBJECT
public:
  enum Column { SiteColumn, GovernsColumn, ShapeColumn, MemoryColumn, StatusColumn, ColumnCount };
  enum Roles {
    FitRole = Qt::UserRole + 1,  // int(TileFit) of the effective shape; -1 when nothing is set
    SectionRole,                 // "vec" / "cube"
    KeyRole,                     // the tile_settings key
    FromProjectRole,             // bool: the project sets this key
    DetailsRole,                 // several lines: governed ops, dtypes, use, problems
  };

  explicit TileSettingsModel(QObject* parent = nullptr);
  ~TileSettingsModel() override;

  // The traced kernel (kept alive by the model), its dim bindings and the
  // machine; then setSettings gives the sites their values.
  void setKernel(std::shared_ptr<const TensorGraph> graph, Bindings bindings,
                 const TargetInfo& target);
  void setTarget(const TargetInfo& target);
  void setSettings(const nlohmann::ordered_json& tileSettings);

  const TileSite& site(int row) const { return m_rows.at(static_cast<std::size_t>(row)).site; }
  // The live check of `text` as the shape of `row` (what the editor shows while typing).
  TileBufferCheck checkText(int row, const QString& text) const;
  // The rows whose key is a call site and whose value comes from the project.
  std::vector<int> rowsToWriteBack() const;

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  // Texts the panel also shows.
  static QString governsText(const TileSite& site);
  static QString siteText(const TileSite& site);

Q_SIGNALS:
  // `shape` is nullopt to remove the key (its section is `section`).
  void tileShapeEditRequested(pto::TileSection section, const QString& key, const std::optional<pto::TileShape>& shape);

private:
  int tableRows() const override { return static_cast<int>(m_rows.size()); }

  struct Row {
    TileSite site;
    std::shared_ptr<TileBufferChecker> checker;
    std::optional<TileBufferCheck> check;  // of the effective value
  };
  void rebuild();

  std::shared_ptr<const TensorGraph> m_graph;
  Bindings m_bindings;
  TargetInfo m_target;
  nlohmann::ordered_json m_settings = nlohmann::ordered_json::object();
  std::vector<Row> m_rows;
};

} // namespace pto::widgets
