import { createContext, useContext } from 'react';
import type { Administrator, Privilege } from './api/types';

export interface Auth {
  admin: Administrator;
  signOut: () => Promise<void>;
  /** Reload the signed-in administrator (after changing one's own e-mail). */
  refresh: () => Promise<void>;
}

export const AuthContext = createContext<Auth | null>(null);

export function useAuth(): Auth {
  const auth = useContext(AuthContext);
  if (!auth) throw new Error('useAuth outside the signed-in shell');
  return auth;
}

/** Super users have every privilege (../shared/api/DECISIONS.md § Authentication and authorization). */
export function can(admin: Administrator, privilege: Privilege | 'super'): boolean {
  if (admin.super_user) return true;
  return privilege === 'super' ? false : admin.privileges[privilege];
}
