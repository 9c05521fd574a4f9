-- The annotated image of each ruling (JPEG), so that a resumed audit can still report it.
CREATE TABLE ruling_images (
	ruling_id INTEGER PRIMARY KEY REFERENCES rulings(id) ON DELETE CASCADE,
	annotated BLOB NOT NULL
);
