package definition

// Content-enrichment step types: they read or write the content item that
// triggered the run, so they need a new_content trigger.
func contentSpecs() []*StepSpec {
	return []*StepSpec{
		{
			Type:        StepWriteMetadata,
			Group:       "Content enrichment",
			Summary:     "Write a value to the triggering content's metadata.",
			Doc:         "Sets metadata `metadata_key` of the content item to `content` rendered, for filtering and gates downstream. Content-triggered agents only. The input passes through unchanged.",
			ContentOnly: true,
			Fields: []Field{
				{Name: "metadata_key", Kind: KindString, Required: true, Doc: "Metadata key to set."},
				{Name: "content", Kind: KindTemplate, Required: true, Doc: "Value to store."},
			},
		},
		{
			Type:        StepWriteContentAttachment,
			Group:       "Content enrichment",
			Summary:     "Write a file-backed attachment to the triggering content.",
			Doc:         "Stores `content` as attachment `attachment_key` of the content item, optionally indexed for retrieval. Content-triggered agents only.",
			ContentOnly: true,
			Fields: []Field{
				{Name: "attachment_key", Kind: KindString, Required: true, Doc: "Attachment name, unique per content item."},
				{Name: "content", Kind: KindTemplate, Required: true, Doc: "Attachment body."},
				{Name: "content_type", Kind: KindString, Default: "text/plain", Doc: "Media type of the body.", check: checkMediaType},
				{Name: "indexed", Kind: KindBoolean, Default: false, Doc: "Embed the attachment so retrieval can find it."},
			},
		},
		{
			Type:        StepLoadContentAttachment,
			Group:       "Content enrichment",
			Summary:     "Load an attachment written earlier to the triggering content.",
			Doc:         "Outputs the body of attachment `attachment_key`. Content-triggered agents only.",
			ContentOnly: true,
			Fields: []Field{
				{Name: "attachment_key", Kind: KindString, Required: true, Doc: "Attachment name."},
			},
		},
		{
			Type:    StepLoadContent,
			Group:   "Content enrichment",
			Summary: "Load the full text body of a source document.",
			Doc:     "Outputs the text of the triggering content item, or of `content_version_id` when given. Without `content_version_id` it needs a content-triggered agent.",
			Fields: []Field{
				{Name: "content_version_id", Kind: KindTemplate, Doc: "Content version to load instead of the triggering one."},
			},
			rules: loadContentRules,
		},
	}
}

// loadContentRules: load_content is content-only unless it names the version
// to load, because otherwise there is nothing to load.
func loadContentRules(c *checker, v Visit) {
	if id, ok := v.Step.String("content_version_id"); ok && id != "" {
		return
	}
	if t := c.opts.Trigger; t != "" && t != TriggerNewContent {
		c.errorf(CodeContentTrigger, v.Path, "load_content without content_version_id needs a new_content trigger, not %s", t)
	}
}
