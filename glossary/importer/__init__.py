"""`glossary import`: a folder of Markdown terms with front-matter, in section folders, as draft entries.

``import_glossary(src, entries_dir)`` reads every term under ``src``, maps its front-matter, links,
images, first sentence and section folder onto an entry (docs/maintainers/importing.md has the
whole mapping), writes ``entries/<slug>.md`` with author and reviewer ``pending``, and returns an
``ImportReport`` of what did not map.
"""

from glossary.importer.reading import MAX_IMPORT_FILES
from glossary.importer.report import (FileReport, ImportReport, Note, ReportFileError, check_report_path,
                                     write_report)
from glossary.importer.run import SourceFolderError, import_glossary

__all__ = ["MAX_IMPORT_FILES", "FileReport", "ImportReport", "Note", "ReportFileError", "SourceFolderError",
           "check_report_path", "import_glossary", "write_report"]
