"""Text as every reader reads it, below the building blocks that read it (sensing, enforcement): one folding of
invisible and look-alike characters (`normalise`, `confusables`) and amounts brought to one written form
(`amount_styles`, `amounts`). Nothing here knows an agent, a turn or a model."""
