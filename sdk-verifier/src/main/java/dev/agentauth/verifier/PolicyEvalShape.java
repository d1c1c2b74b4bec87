package dev.agentauth.verifier;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The one optional top-level member of the receipt format, {@code policy_eval}, allowed on scope
 * receipts only, in exactly this shape: {@code {"matched_condition": null | {"field": string, "op":
 * string, "value": scalar | [scalar...]}, "field_value": scalar}} where a scalar is a string, a
 * safe integer, a boolean or null.
 */
final class PolicyEvalShape {

  private PolicyEvalShape() {}

  /** Returns a message naming the first defect, or {@code null} when the shape is right. */
  static String check(JsonNode pe) {
    if (!pe.isObject()) {
      return "policy_eval must be an object, found " + Canonicalizer.typeName(pe);
    }
    String problem = members(pe, "policy_eval", "matched_condition", "field_value");
    if (problem != null) {
      return problem;
    }
    JsonNode mc = pe.get("matched_condition");
    if (mc.isObject()) {
      problem = members(mc, "policy_eval.matched_condition", "field", "op", "value");
      if (problem != null) {
        return problem;
      }
      if (!mc.get("field").isTextual()) {
        return "policy_eval.matched_condition.field must be a string, found "
            + Json.show(mc.get("field"));
      }
      if (!mc.get("op").isTextual()) {
        return "policy_eval.matched_condition.op must be a string, found "
            + Json.show(mc.get("op"));
      }
      JsonNode value = mc.get("value");
      boolean ok = scalar(value);
      if (!ok && value.isArray()) {
        ok = true;
        for (int i = 0; i < value.size() && ok; i++) {
          ok = scalar(value.get(i));
        }
      }
      if (!ok) {
        return "policy_eval.matched_condition.value must be a string, safe integer, boolean, null"
            + " or an array of those; found "
            + Json.show(value);
      }
    } else if (!mc.isNull()) {
      return "policy_eval.matched_condition must be null or an object, found " + Json.show(mc);
    }
    JsonNode fieldValue = pe.get("field_value");
    if (!scalar(fieldValue)) {
      return "policy_eval.field_value must be a string, safe integer, boolean or null; found "
          + Json.show(fieldValue);
    }
    return null;
  }

  private static boolean scalar(JsonNode v) {
    if (v.isTextual() || v.isBoolean() || v.isNull()) {
      return true;
    }
    if (v.isIntegralNumber() && v.canConvertToLong()) {
      long n = v.longValue();
      return n <= Canonicalizer.MAX_SAFE_INTEGER && n >= -Canonicalizer.MAX_SAFE_INTEGER;
    }
    return false;
  }

  private static String members(JsonNode obj, String path, String... names) {
    List<String> unknown = null;
    for (Map.Entry<String, JsonNode> e : obj.properties()) {
      boolean known = false;
      for (String name : names) {
        known |= name.equals(e.getKey());
      }
      if (!known) {
        if (unknown == null) {
          unknown = new ArrayList<>(2);
        }
        unknown.add(e.getKey());
      }
    }
    if (unknown != null) {
      return path + " has unknown fields: " + unknown;
    }
    List<String> missing = null;
    for (String name : names) {
      if (obj.get(name) == null) {
        if (missing == null) {
          missing = new ArrayList<>(2);
        }
        missing.add(name);
      }
    }
    return missing == null ? null : path + " missing fields: " + missing;
  }
}
