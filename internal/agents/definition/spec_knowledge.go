package definition

// Knowledge-base and memory-bank step types.
func knowledgeSpecs() []*StepSpec {
	bank := func(doc string) Field {
		return Field{Name: "memory_bank_id", Kind: KindRef, Ref: RefMemoryBank, Required: true, Doc: doc}
	}
	return []*StepSpec{
		{
			Type:    StepRetrieval,
			Group:   "Knowledge and memory",
			Summary: "Search a knowledge base.",
			Doc:     "Runs a semantic search of `query` over the knowledge base and outputs the best passages (text with their source titles), for a following prompt_call to ground its answer on.",
			Fields: []Field{
				{Name: "knowledge_base_id", Kind: KindRef, Ref: RefKnowledgeBase, Required: true, Doc: "Knowledge base to search."},
				{Name: "query", Kind: KindTemplate, Default: "{{input}}", Doc: "Search text."},
				bounded(Field{Name: "top_k", Kind: KindInteger, Default: 5, Doc: "Passages returned."}, 1, 100),
				bounded(Field{Name: "min_score", Kind: KindNumber, Doc: "Drop passages scoring below this similarity."}, 0, 1),
				{Name: "source_connection_ids", Kind: KindRefList, Ref: RefSourceConnection, Doc: "Only search content from these sources of the knowledge base."},
				{Name: "metadata_filter", Kind: KindObject, Doc: "Containment filter on content metadata (`{\"lang\": \"en\"}`)."},
				{Name: "include_metadata", Kind: KindBoolean, Default: false, Doc: "Append each passage's metadata to the output."},
			},
		},
		{
			Type:    StepAddChatTurn,
			Group:   "Knowledge and memory",
			Summary: "Record a turn in a conversation memory bank.",
			Doc:     "Appends `content` as a `role` turn to the conversation `conversation_id` of the bank. The input passes through unchanged.",
			Fields: []Field{
				bank("Conversation memory bank."),
				{Name: "role", Kind: KindString, Enum: []string{"user", "assistant", "system"}, Default: "user", Doc: "Who is speaking."},
				{Name: "content", Kind: KindTemplate, Default: "{{input}}", Doc: "The turn's text."},
				{Name: "conversation_id", Kind: KindTemplate, Doc: "Which conversation (e.g. `{{metadata.session_id}}`); one running history per agent when absent."},
				{Name: "conversation_key", Kind: KindTemplate, Doc: "Same as conversation_id (the bank's partition key); wins when both are set."},
				{Name: "speaker", Kind: KindTemplate, Doc: "Who is speaking, any name; wins over role."},
			},
		},
		{
			Type:    StepLoadChatHistory,
			Group:   "Knowledge and memory",
			Summary: "Load the running history of a conversation memory bank.",
			Doc:     "Outputs the latest `max_turns` turns of the conversation, oldest first, as text or as a JSON message array for a prompt_call with `input_is_messages`.",
			Fields: []Field{
				bank("Conversation memory bank."),
				{Name: "conversation_id", Kind: KindTemplate, Doc: "Which conversation; as in add_chat_turn."},
				{Name: "conversation_key", Kind: KindTemplate, Doc: "Same as conversation_id; wins when both are set."},
				bounded(Field{Name: "max_turns", Kind: KindInteger, Default: 20, Doc: "Turns loaded."}, 1, 500),
				bounded(Field{Name: "max_tokens", Kind: KindInteger, Doc: "Token budget: the newest turns that fit in it."}, 1, 1000000),
				{Name: "format", Kind: KindString, Enum: []string{"text", "messages"}, Default: "text", Doc: "Transcript text or a JSON message array."},
			},
		},
		{
			Type:    StepAddMemory,
			Group:   "Knowledge and memory",
			Summary: "Write an entry to a general memory bank.",
			Doc:     "Stores `content` (embedded for search) with optional `metadata`. The input passes through unchanged.",
			Fields: []Field{
				bank("General memory bank."),
				{Name: "content", Kind: KindTemplate, Default: "{{input}}", Doc: "The entry."},
				{Name: "metadata", Kind: KindObject, Doc: "Metadata stored with the entry; string values are templates."},
				{Name: "group_key", Kind: KindTemplate, Doc: "Partition of the entry (e.g. a customer id); none when absent."},
				{Name: "tags", Kind: KindStringList, Doc: "Tags stored with the entry."},
			},
		},
		{
			Type:    StepSearchMemory,
			Group:   "Knowledge and memory",
			Summary: "Semantic search over a general memory bank.",
			Doc:     "Outputs the `top_k` entries closest to `query`.",
			Fields: []Field{
				bank("General memory bank."),
				{Name: "query", Kind: KindTemplate, Default: "{{input}}", Doc: "Search text."},
				bounded(Field{Name: "top_k", Kind: KindInteger, Default: 5, Doc: "Entries returned."}, 1, 100),
				bounded(Field{Name: "min_score", Kind: KindNumber, Doc: "Drop entries scoring below this similarity."}, 0, 1),
				bounded(Field{Name: "score_threshold", Kind: KindNumber, Doc: "Same as min_score."}, 0, 1),
				{Name: "metadata_filter", Kind: KindObject, Doc: "Filter on the entries' metadata (`{\"topic\": \"billing\"}`)."},
				{Name: "group_key", Kind: KindTemplate, Doc: "Search only this partition; the whole bank when absent."},
			},
		},
		{
			Type:    StepLoadMemory,
			Group:   "Knowledge and memory",
			Summary: "Load entries of a general memory bank.",
			Doc:     "Outputs up to `limit` entries in `order`, one per paragraph.",
			Fields: []Field{
				bank("General memory bank."),
				bounded(Field{Name: "limit", Kind: KindInteger, Default: 50, Doc: "Entries loaded."}, 1, 1000),
				{Name: "order", Kind: KindString, Enum: []string{"newest", "oldest"}, Default: "newest", Doc: "Which entries come first."},
				{Name: "group_key", Kind: KindTemplate, Doc: "Load only this partition; the whole bank when absent."},
			},
		},
	}
}
