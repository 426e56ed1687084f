"""A LangServe route as a LangChain user writes one: a retrieval chain over a Qdrant collection,
served by LangServe's add_routes at /rag (POST /rag/invoke). The second RAG nobody here wrote
(issue 42 item 5), installed by tools/rag-products/install-langserve.sh. Its model endpoints are the
same OpenAI-compatible ones Flowise uses (bench/rag-products/llm-server.ts, embeddings-server.ts).

Settings (environment): QDRANT_URL, QDRANT_API_KEY, QDRANT_COLLECTION (the collection in LangChain's
layout: `content` / `metadata`), OPENAI_BASE_URL_LLM, OPENAI_BASE_URL_EMBEDDINGS, PORT, RAG_PROMPT (the
system prompt, `{context}` the retrieved documents; default the project's few-shot prompt).
"""
import os

from fastapi import FastAPI
from langchain_core.documents import Document
from langchain_core.prompts import ChatPromptTemplate
from langchain_core.runnables import RunnablePassthrough
from langchain_core.output_parsers import StrOutputParser
from langchain_openai import ChatOpenAI, OpenAIEmbeddings
from langchain_qdrant import QdrantVectorStore
from langserve import add_routes
from pydantic import BaseModel
import uvicorn

FEW_SHOT = (
    "Answer the question using only the context. Answer with one short sentence.\n\n"
    "Context: Package: curl | Version: 7.88.1-10+deb12u5 | Released: 2023-12-20 | Uploaded by: Samuel Henrique"
    " | Distribution: bookworm | Urgency: medium\n"
    "Question: What is the latest version of curl?\n"
    "Answer: The latest version of curl is 7.88.1-10+deb12u5.\n\n"
    "Context: Package: curl | Version: 7.88.1-10+deb12u5 | Released: 2023-12-20 | Uploaded by: Samuel Henrique"
    " | Distribution: bookworm | Urgency: medium\n"
    "Question: Who uploaded the latest version of curl?\n"
    "Answer: Samuel Henrique uploaded the latest version of curl.\n\n"
    "Context: {context}"
)

embeddings = OpenAIEmbeddings(
    model="all-MiniLM-L6-v2",
    base_url=os.environ["OPENAI_BASE_URL_EMBEDDINGS"],
    api_key="sk-local-no-key",
    # The tokenizer check downloads tiktoken's files: not with a local model, not offline.
    check_embedding_ctx_length=False,
)
store = QdrantVectorStore.from_existing_collection(
    collection_name=os.environ["QDRANT_COLLECTION"],
    embedding=embeddings,
    url=os.environ["QDRANT_URL"],
    api_key=os.environ.get("QDRANT_API_KEY") or None,
    content_payload_key="content",
    metadata_payload_key="metadata",
)
retriever = store.as_retriever(search_kwargs={"k": 4})
llm = ChatOpenAI(
    model="gemma-3-270m",
    base_url=os.environ["OPENAI_BASE_URL_LLM"],
    api_key="sk-local-no-key",
    temperature=0,
    max_tokens=48,
)
prompt = ChatPromptTemplate.from_messages([("system", os.environ.get("RAG_PROMPT", FEW_SHOT)), ("human", "{input}")])


def format_docs(docs):
    return "\n".join(doc.page_content for doc in docs)


# create_retrieval_chain's shape: {"input", "context": [Document], "answer"}.
chain = RunnablePassthrough.assign(context=(lambda x: x["input"]) | retriever).assign(
    answer=RunnablePassthrough.assign(context=lambda x: format_docs(x["context"])) | prompt | llm | StrOutputParser()
)


class Question(BaseModel):
    input: str


class Answer(BaseModel):
    """The output schema LangServe serialises by: without it the inferred one drops `context`."""

    input: str
    context: list[Document]
    answer: str


app = FastAPI(title="rag-immune LangServe trial route")
add_routes(app, chain.with_types(input_type=Question, output_type=Answer), path="/rag")

if __name__ == "__main__":
    uvicorn.run(app, host="127.0.0.1", port=int(os.environ.get("PORT", "18434")))
