/** agentauth model. */
package dev.agentauth.model;
