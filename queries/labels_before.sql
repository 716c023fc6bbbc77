-- view: labels_before
-- definition: the before side of a comparison of labels (queries/label_flips.sql): empty
--   here; `report diff` registers the side's labels under this name in its own context
-- grain: (run_id, server, case_id)
-- inputs: labels
-- nulls: as labels
SELECT * FROM labels WHERE false
