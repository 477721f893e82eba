// A trace's kernel source: which file, where, and what to say without it.
#include "app/studio/SourceFiles.h"

#include "runtime/trace/Trace.h"
#include "widgets/QtText.h"

#include <QDir>
#include <QFileInfo>
#include <QObject>

#include <algorithm>
#include <map>

namespace pto::studio {

QString mainSourceFile(const trace::Trace& trc) {
  std::map<trace::StringId, std::size_t> counts;
  for (const trace::Task& task : trc.tasks())
    if (task.sourceFile != trace::kEmptyString) ++counts[task.sourceFile];
  auto most = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  return most == counts.end() ? QString() : widgets::qtext(trc.str(most->first));
}

QString locateTraceSource(const QString& source, const QString& traceFile) {
  QFileInfo written(source);
  if (written.isAbsolute()) return written.isFile() ? written.absoluteFilePath() : QString();
  QDir dir = QFileInfo(traceFile).absoluteDir();
  do {
    QFileInfo candidate(dir.filePath(source));
    if (candidate.isFile()) return candidate.absoluteFilePath();
  } while (dir.cdUp());
  return QString();
}

bool sameFile(const QString& a, const QString& b) {
  QString canonicalA = QFileInfo(a).canonicalFilePath();
  return !canonicalA.isEmpty() && canonicalA == QFileInfo(b).canonicalFilePath();
}

QString missingSourceText(const QString& traceFile, const QString& source, const QString& found, const QString& error) {
  QString traceName = QFileInfo(traceFile).fileName();
  QString folder = QDir::toNativeSeparators(QFileInfo(traceFile).absolutePath());
  // One paragraph a line: the editor wraps a placeholder to its width.
  if (source.isEmpty())
    return QObject::tr("# No source to show.\n#\n# The tasks of %1 name no source file, so there is no kernel line to show "
                       "beside the swimlane.\n")
        .arg(traceName);
  if (!error.isEmpty())
    return QObject::tr("# The kernel of this trace cannot be shown.\n#\n# %1 refers to %2, found as %3 but not readable: %4\n")
        .arg(traceName, source, found, error);
  return QObject::tr("# The kernel of this trace was not found.\n#\n# %1 refers to %2, which was not found: %3.\n#\n"
                     "# Open the project it was run from (Ctrl+O), or put the file there, to see its lines beside the swimlane.\n")
      .arg(traceName, source,
           QFileInfo(source).isAbsolute() ? QObject::tr("there is no such file")
                                          : QObject::tr("it is not beside the trace (in %1) nor in a folder above").arg(folder));
}

} // namespace pto::studio
