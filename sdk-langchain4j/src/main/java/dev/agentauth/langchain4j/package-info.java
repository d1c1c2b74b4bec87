/**
 * Guards the tools of LangChain4j AI services with agentauth: start at {@link
 * dev.agentauth.langchain4j.LangChain4jToolGuard}.
 */
package dev.agentauth.langchain4j;
