-- The visual editor's documents (issue 30): the JSON a template version or a broadcast was built
-- from, beside the html rendered from it (which sends keep using as before). NULL: written as raw
-- HTML. A version is never changed, so publishing keeps the document of the version it publishes;
-- a broadcast composed from a template gets a copy of its published version's document.
ALTER TABLE template_versions ADD COLUMN document jsonb;
ALTER TABLE broadcasts ADD COLUMN document jsonb;
