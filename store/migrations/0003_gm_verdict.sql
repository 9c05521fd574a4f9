-- The GM's verdict on a tear (valid | faux_pas; '' when the GM gave none) beside tearcam's own
-- verdict, so that a tournament's database shows where the GM ruled (the whole GM ruling is in
-- ruling_json, as tears[].gm_ruling).
ALTER TABLE rulings ADD COLUMN gm_verdict TEXT NOT NULL DEFAULT '';
