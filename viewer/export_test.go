package viewer

// SetBatchItems sets the most items of one batch of v's WriteStatic.
func SetBatchItems(v *Viewer, n int) { v.batchItems = n }
