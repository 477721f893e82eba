// SourceEditor: the kernel source (QScintilla, Python lexer, line numbers)
// linked to the swimlane: a gutter stripe shows each line's semantic-label
// colour (the swimlane's colours), showLine() scrolls to a task's line and
// tints the whole line in its label's colour, and clicking a line emits
// lineClicked so its tasks can be selected. It also shows a run's
// diagnostics (margin symbols, squiggles, hover text) and has an inline
// find/replace bar (Ctrl+F, Ctrl+H, F3, Shift+F3), and a run's cost
// heatmap: each line's share of busy time in a margin. A file can be shown
// read-only (a trace's kernel), and a placeholder text can stand in for a
// file that could not be found.
// Unsaved edits: QsciScintilla's isModified() and modificationChanged(bool);
// setSavePoint() marks the current text as saved.
#pragma once

#include "widgets/FindBar.h"
#include "widgets/Qsci.h"
#include "widgets/models/EditorDiagnostics.h"
#include "widgets/models/LabelPalette.h"

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

class QAction;

namespace pto {
struct LineCostReport;
struct SourceLineCost;
} // namespace pto

namespace pto::widgets {

class SourceEditor : public QsciScintilla {
  Q_OBJECT
public:
  explicit SourceEditor(QWidget* parent = nullptr);

  // Loads a file (UTF-8), editable or read-only; on failure returns false,
  // sets `error` and leaves the editor as it was. Clears the diagnostics.
  bool loadFile(const QString& path, QString* error, bool readOnly = false);
  // Shows `text` read-only and word-wrapped in place of a file (filePath()
  // becomes empty): what the user should know about the missing source.
  void showPlaceholder(const QString& text);
  bool showsPlaceholder() const { return m_placeholder; }
  bool save(QString* error);
  const QString& filePath() const { return m_path; }
  // The current text is what is on disk now (e.g. after the caller saved it).
  void setSavePoint() { setModified(false); }

  // Scrolls to 1-based `line`, puts the caret there and marks it as the
  // selected task's line: the whole line's background tinted in the colour
  // of `label` (empty: the line's own gutter label; a line without one takes
  // the palette's highlight). The mark stays until the next showLine; 0
  // clears it. Does not emit lineClicked.
  void showLine(int line, std::string_view label = {});
  int shownLine() const { return m_shownLine; }
  // Each line's semantic label (1-based line → label); the gutter shows its colour.
  // `colors`: the trace's label colours (TraceIndex::labelColors), so the
  // gutter matches the swimlane even where two labels' hashes collide.
  void setLineLabels(const std::map<int, std::string>& labels, const LabelColors& colors = {});

  // --- diagnostics -------------------------------------------------------
  // Replaces the shown diagnostics (an empty list clears them): a symbol in
  // the left margin per line (error, warning, note: distinct shapes and
  // colours) and an underline over the column range (squiggly for errors
  // and warnings, dotted for notes). Diagnostics whose `file` is set and is
  // not this editor's file are left out (sameSourceFile); lines past the end
  // are dropped. Marks move with later edits; hovering a mark or its margin
  // symbol shows the message.
  void setDiagnostics(const std::vector<EditorDiagnostic>& diagnostics);
  void clearDiagnostics() { setDiagnostics({}); }
  const std::vector<EditorDiagnostic>& diagnostics() const { return m_diagnostics; }
  // What hovering shows at 1-based `line`/`column` (the messages whose
  // underline covers it, one per line), or on the margin of `line` (every
  // message of the line); empty when there is none.
  QString diagnosticTextAt(int line, int column) const;
  QString diagnosticTextOnLine(int line) const;
  // The underlines as they are now in the document: 1-based line, 1-based
  // start column, exclusive end column (for tests and the lead's checks).
  struct UnderlineRange {
    EditorDiagnostic::Severity severity;
    int line;
    int startColumn;
    int endColumn;
    friend bool operator==(const UnderlineRange&, const UnderlineRange&) = default;
  };
  std::vector<UnderlineRange> diagnosticUnderlines() const;
  // The severities marked in the margin of 1-based `line`.
  std::vector<EditorDiagnostic::Severity> diagnosticMarkers(int line) const;

  // --- cost heatmap --------------------------------------------------------
  // A run's busy time per kernel line (analysis/report/LineCost.h; null
  // clears it): a margin beside the text gives each line of this file that a
  // task ran its share of the run's busy time, coloured white -> yellow ->
  // red relative to the hottest line (CostHeatmap.h); hovering it shows the
  // line's cycles by core type and pipe, its tasks and its instructions.
  // Loading a file clears it.
  void setLineCosts(std::shared_ptr<const LineCostReport> costs);
  // View > Cost heatmap: shows or hides the margin (on by default; remembered).
  QAction* costHeatmapAction() const { return m_costHeatmapAction; }
  // What the margin shows on 1-based `line`: its text ("13.3%"; empty when
  // none or hidden) and its colour level (0..kHeatLevels, -1 when none).
  QString costMarginText(int line) const;
  int costLevelOnLine(int line) const;
  // What hovering the heatmap of `line` shows; empty when it shows nothing.
  QString costTextOnLine(int line) const;

  // --- find / replace ------------------------------------------------------
  // The bar at the bottom of the editor. Ctrl+F / Ctrl+H open it (with the
  // selected word as the text), Esc closes it.
  FindBar* findBar() const { return m_findBar; }
  void openFindBar(bool replace);
  void closeFindBar();
  // What is searched for; also what the bar shows.
  void setSearch(const QString& text, const SearchOptions& options = {});
  // Selects the next match after the selection (or the previous one before
  // it), wrapping at the ends; false when nothing matches. Replaces
  // QScintilla's findNext, which only continues a findFirst.
  bool findNext() override;
  bool findPrevious();
  int matchCount() const;
  // 1-based index of the selected match; 0 when the selection is not one.
  int currentMatch() const;
  // Replaces the selected match (when it is one) and selects the next;
  // with regex, \1..\9 in `replacement` are the match's groups.
  bool replaceCurrent(const QString& replacement);
  // Replaces every match as one undo step; returns how many.
  int replaceAll(const QString& replacement);

Q_SIGNALS:
  void lineClicked(int line);  // 1-based, by the user (text or margin click)

protected:
  void mouseReleaseEvent(QMouseEvent* event) override;
  void changeEvent(QEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

private:
  struct ShownDiagnostic {
    EditorDiagnostic diagnostic;
    int markerHandle = -1;
    int startIndex = 0;  // 0-based character index in its line where the underline starts
    int endIndex = 0;    // exclusive; for a whole-line diagnostic, past the line's end
  };
  using Match = std::pair<long, long>;  // byte positions [start, end)

  void applyColours();
  // Gives the shown line's mark the colour of m_shownLineLabel (see showLine).
  void colourShownLine();
  void defineDiagnosticMarkers();
  // Redraws the heatmap margin from m_lineCosts (the styles too: a theme change).
  void showCostHeatmap();
  const SourceLineCost* lineCostAt(int line) const;
  void layoutFindBar();
  void onDwellStart(int position, int x, int y);
  QStringList diagnosticMessages(int line, int index, bool wholeLine) const;
  int currentLineOf(const ShownDiagnostic& shown) const;
  // The end of the quoted string that opens at `start` on 0-based `line`
  // (past its closing quote); `start` when none opens there.
  long quotedStringEnd(int line, long start) const;
  // Sets Scintilla's search flags from the search; false (with the reason)
  // for an invalid regular expression.
  bool prepareSearch(QString* reason) const;
  const std::vector<Match>& matches() const;
  void selectMatch(const Match& match);
  // Selects the first match after the selection (`after`) or the last one
  // before it, wrapping around the text; false when nothing matches.
  bool selectMatchBeside(bool after);
  void updateFindBar();
  void highlightMatches();
  void onSearchEdited();

  QString m_path;
  bool m_placeholder = false;
  int m_shownLine = 0;
  std::string m_shownLineLabel;
  std::map<int, std::string> m_lineLabels;
  LabelColors m_lineLabelColors;
  std::vector<EditorDiagnostic> m_diagnostics;
  std::vector<ShownDiagnostic> m_shown;

  std::shared_ptr<const LineCostReport> m_lineCosts;
  std::map<int, const SourceLineCost*> m_lineCostByLine;  // this file's lines in m_lineCosts
  std::map<int, int> m_costLevels;                        // as shown: line -> colour level
  QAction* m_costHeatmapAction = nullptr;

  FindBar* m_findBar = nullptr;
  QString m_searchText;
  SearchOptions m_searchOptions;
  mutable std::vector<Match> m_matches;
  mutable bool m_matchesValid = false;
  mutable bool m_patternValid = true;
  mutable QString m_patternError;
};

} // namespace pto::widgets
