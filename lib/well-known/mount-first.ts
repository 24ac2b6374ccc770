import type { Router } from "express";

/**
 * Puts the plugin's well-known routes ahead of every other endpoint's in
 * Indiekit. The host mounts each endpoint's `routesWellKnown` at
 * `/.well-known/` in the order the endpoints were added, its IndieAuth
 * endpoint first; that endpoint serves `/auth` and its well-known routes
 * from one shared router guarded by a "Missing SECRET" check, so while the
 * host runs without `SECRET` it answers every `/.well-known/` path with 501
 * and no router mounted after it is reached. An endpoint that carries only
 * our well-known router, added in front, is reached first; paths it does not
 * serve still fall through to the host's.
 *
 * Returns false (nothing changed) when the host's endpoints are not the Set
 * Indiekit keeps: the plugin's own `routesWellKnown` is then mounted as usual.
 */
export function mountWellKnownFirst(endpoints: unknown, name: string, router: Router): boolean {
  if (!(endpoints instanceof Set)) return false;
  const others = [...endpoints];
  endpoints.clear();
  endpoints.add({ name, routesWellKnown: router });
  for (const endpoint of others) endpoints.add(endpoint);
  return true;
}
