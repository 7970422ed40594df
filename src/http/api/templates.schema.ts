// Schemas shared by the template and broadcast routes: the `document` field of the visual editor
// (issue 30), described, not enforced here: templates/document.ts checks it with messages that
// name the path.
export const DOCUMENT_DESCRIPTION =
  "Mailroom: the visual editor's document {version: 1, settings, blocks} (README: The email document); the server renders it into the html and text (html beside it is refused; html alone later drops it)";
