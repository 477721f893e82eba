// TunePointsModel: points of a tuner sweep (analysis/tuner/Tuner.h) as a table —
// the Advice panel's Pareto table. One row per point given (the Pareto
// front fastest first, or every evaluated point), with its makespan, the
// change against the sweep's baseline, its busy core time, whether this sweep
// simulated it or took it from the result cache, and its settings
// ("vec_nbuffer_setting.softmax = 8 · device_sched_mode = 2"). IsBestRole
// marks the sweep's fastest point (the view bolds it). Paints nothing.
#pragma once

#include "analysis/tuner/Tuner.h"
#include "widgets/models/TitledTableModel.h"

#include <memory>
#include <vector>

namespace pto::widgets {

class TunePointsModel : public TitledTableModel {
  Q_OBJECT
public:
  enum Columns { MakespanColumn, GainColumn, BusyColumn, SourceColumn, SettingsColumn, ColumnCount };
  enum Roles {
    PointIndexRole = Qt::UserRole,  // the point's index in TuneResult::points
    MakespanUsRole,
    BusyUsRole,
    IsBestRole,
  };

  explicit TunePointsModel(QObject* parent = nullptr);

  // `rows`: indices into result.points, in display order (only "ok" points).
  void setResult(std::shared_ptr<const TuneResult> result, std::vector<int> rows);
  void clear();
  const TuneResult* result() const { return m_result.get(); }
  // The point a row shows (-1 when out of range), and the row of a point (-1 when not shown).
  int pointAt(int row) const;
  int rowOf(int point) const;

  // A point's settings as one line: each dimension's path without its
  // group ("pass_options.", "runtime_options.", "tile_settings.") = value.
  static QString settingsText(const TuneSpace& space, const std::vector<int>& choice);

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
  int tableRows() const override { return static_cast<int>(m_rows.size()); }

  std::shared_ptr<const TuneResult> m_result;
  std::vector<int> m_rows;
};

} // namespace pto::widgets
