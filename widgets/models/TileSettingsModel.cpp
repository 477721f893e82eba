// Implementation of TileSettingsModel.
#include "widgets/models/TileSettingsModel.h"

namespace pto::widgets {

TileSettingsModel::TileSettingsModel(QObject* parent)
    : TitledTableModel({tr("Site"), tr("Governs"), tr("Shape"), tr("Memory use"), tr("Status")}, {}, parent) {}
TileSettingsModel::~TileSettingsModel() = default;

void TileSettingsModel::setKernel(std::shared_ptr<const TensorGraph> graph, Bindings bindings,
                                  const TargetInfo& target) {
  m_graph = std::move(graph);
  m_bindings = std::move(bindings);
  m_target = target;
  beginResetModel();
  m_rows.clear();
  endResetModel();
  rebuild();
}

void TileSettingsModel::setTarget(const TargetInfo& target) {
  m_target = target;
  rebuild();
}

void TileSettingsModel::setSettings(const nlohmann::ordered_json& tileSettings) {
  m_settings = tileSettings;
  rebuild();
}

void TileSettingsModel::rebuild() {
  std::vector<Row> rows;
  if (m_graph) {
    for (TileSite& site : collectTileSites(*m_graph, m_settings, m_bindings)) {
      Row row;
      row.site = std::move(site);
      if (!row.site.governs.empty()) {
        row.checker = std::make_shared<TileBufferChecker>(*m_graph, row.site, m_bindings, m_target);
        if (!row.site.effectiveValue.is_null()) row.check = row.checker->checkJson(row.site.effectiveValue);
      }
      rows.push_back(std::move(row));
    }
  }
  bool sameKeys = rows.size() == m_rows.size();
  for (std::size_t i = 0; sameKeys && i < rows.size(); ++i)
    sameKeys = rows[i].site.section == m_rows[i].site.section && rows[i].site.key == m_rows[i].site.key;
  if (sameKeys) {
    // Same sites: keep the view's selection and open editor.
    m_rows = std::move(rows);
    if (!m_rows.empty()) Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
    return;
  }
  beginResetModel();
  m_rows = std::move(rows);
  endResetModel();
}

TileBufferCheck TileSettingsModel::checkText(int row, const QString& text) const {
  if (row < 0 || row >= rowCount()) return {};
  const Row& entry = m_rows[static_cast<std::size_t>(row)];
  if (!entry.checker) {
    TileBufferCheck check;
    check.problems.push_back("no op of the kernel uses this key");
    return check;
  }
  return entry.checker->checkText(text.toStdString());
}

std::vector<int> TileSettingsModel::rowsToWriteBack() const {
  std::vector<int> rows;
  for (std::size_t i = 0; i < m_rows.size(); ++i) {
    const TileSite& site = m_rows[i].site;
    if (site.kind == TileSiteKind::CallSite && site.location.line > 0 && !site.projectValue.is_null())
      rows.push_back(static_cast<int>(i));
  }
  return rows;
}

QString TileSettingsModel::siteText(const TileSite& site) {
  QString section = QString::fromUtf8(name(site.section).data(), static_cast<int>(name(site.section).size()));
  QString key = QString::fromStdString(site.key);
  switch (site.kind) {
  case TileSiteKind::CallSite: return QStringLiteral("%1 %2").arg(section, key);
  case TileSiteKind::Label: return QStringLiteral("%1 '%2'").arg(section, key);
  case TileSiteKind::Default: return QStringLiteral("%1 DEFAULT").arg(section);
  }
  return key;
}

QString TileSettingsModel::governsText(const TileSite& site) {
  if (site.governs.empty()) return tr("nothing");
  QStringList kinds;
  for (const GovernedOp& op : site.governs) {
    QString kind = QString::fromUtf8(name(op.kind).data(), static_cast<int>(name(op.kind).size()));
    if (!kinds.contains(kind)) kinds << kind;
  }
  QStringList lines;
  for (int line : site.lines()) lines << QString::number(line);
  const int count = static_cast<int>(site.governs.size());
  QString text = (count == 1 ? tr("1 op: %1") : tr("%1 ops: %2").arg(count)).arg(kinds.join(QStringLiteral(", ")));
  QStringList labels;
  for (const std::string& label : site.labels()) labels << QStringLiteral("'%1'").arg(QString::fromStdString(label));
  if (!labels.isEmpty()) text += tr("; label %1").arg(labels.join(QStringLiteral(", ")));
  if (!lines.isEmpty()) text += tr("; line %1").arg(lines.join(QStringLiteral(", ")));
  return text;
}

QVariant TileSettingsModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount()) return {};
  const Row& row = m_rows[static_cast<std::size_t>(index.row())];
  const TileSite& site = row.site;
  const QString shape = QString::fromStdString(shapeText(site.section, site.effectiveValue));
  switch (role) {
  case FitRole: return row.check ? static_cast<int>(row.check->fit) : -1;
  case SectionRole: return QString::fromUtf8(name(site.section).data(), static_cast<int>(name(site.section).size()));
  case KeyRole: return QString::fromStdString(site.key);
  case FromProjectRole: return !site.projectValue.is_null();
  case DetailsRole: {
    QStringList lines;
    if (!shape.isEmpty()) lines << tr("Shape: %1").arg(shape);
    lines << tr("Governs %1").arg(governsText(site));
    QStringList dtypes;
    for (DataType dtype : site.operandDtypes) dtypes << QString::fromUtf8(name(dtype).data(), static_cast<int>(name(dtype).size()));
    if (!dtypes.isEmpty()) lines << tr("Operands: %1").arg(dtypes.join(QStringLiteral(", ")));
    if (!site.kernelValue.is_null())
      lines << tr("Kernel value: %1").arg(QString::fromStdString(shapeText(site.section, site.kernelValue)));
    if (!site.effectiveFrom.empty() && site.effectiveFrom != site.key && site.effectiveFrom != "kernel")
      lines << tr("Now taken from: %1").arg(QString::fromStdString(site.effectiveFrom));
    if (row.check) lines << QString::fromStdString(row.check->summary());
    return lines.join(QLatin1Char('\n'));
  }
  default: break;
  }
  if (role == Qt::DisplayRole || role == Qt::EditRole) {
    switch (index.column()) {
    case SiteColumn: return siteText(site);
    case GovernsColumn: return governsText(site);
    case ShapeColumn:
      if (role == Qt::EditRole) return shape;
      if (shape.isEmpty()) return site.governs.empty() ? tr("—") : tr("(not set)");
      return site.projectValue.is_null() && site.effectiveFrom == "kernel" ? tr("%1 (kernel)").arg(shape) : shape;
    case MemoryColumn: return row.check ? QString::fromStdString(row.check->usageText()) : QString();
    case StatusColumn:
      if (site.governs.empty()) return tr("unused");
      if (!row.check) return site.effectiveFrom == "mixed" ? tr("ops differ") : tr("not set");
      if (row.check->fit == TileFit::Invalid && !row.check->problems.empty())
        return QString::fromStdString(row.check->problems.front());
      return QString::fromUtf8(name(row.check->fit).data(), static_cast<int>(name(row.check->fit).size()));
    default: break;
    }
  }
  if (role == Qt::ToolTipRole) return data(index, DetailsRole);
  return {};
}

Qt::ItemFlags TileSettingsModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.column() == ShapeColumn && !site(index.row()).governs.empty()) flags |= Qt::ItemIsEditable;
  return flags;
}

bool TileSettingsModel::setData(const QModelIndex& index, const QVariant& value, int role) {
  if (!index.isValid() || role != Qt::EditRole || index.column() != ShapeColumn) return false;
  const TileSite& site = this->site(index.row());
  if (site.governs.empty()) return false;
  const QString key = QString::fromStdString(site.key);
  const QString text = value.toString().trimmed();
  // The view shows "(kernel)" after an inherited value; editing it back unchanged is no edit.
  if (text == data(index, Qt::EditRole).toString() && site.projectValue.is_null()) return false;
  if (text.isEmpty()) {
    if (site.projectValue.is_null()) return false;
    Q_EMIT tileShapeEditRequested(site.section, key, std::nullopt);
    return true;
  }
  const Row& row = m_rows[static_cast<std::size_t>(index.row())];
  std::string error;
  const std::optional<TileShape> shape = TileShape::parse(site.section, text.toStdString(), error);
  if (!shape || !row.checker || row.checker->check(*shape).fit == TileFit::Invalid) return false;  // the editor showed why
  Q_EMIT tileShapeEditRequested(site.section, key, shape);
  return true;
}

} // namespace pto::widgets
