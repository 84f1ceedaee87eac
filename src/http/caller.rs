//! The signed-in caller of a request: its bearer token checked against the store on every
//! request (`CurrentUser` as a handler's argument).

use actix_web::{dev::Payload, http::header, web, FromRequest, HttpMessage, HttpRequest};
use futures_util::future::LocalBoxFuture;

use super::observe::SignedInAs;
use super::AppState;
use crate::auth::{CurrentUser, TokenClaims};
use crate::error::ServiceError;
use crate::service::accounts;

impl FromRequest for CurrentUser {
    type Error = ServiceError;
    type Future = LocalBoxFuture<'static, Result<CurrentUser, ServiceError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let claimed = claimed_user(req);
        let req = req.clone();
        Box::pin(async move {
            let (state, claimed) = claimed?;
            let signed_in =
                accounts::signed_in(&state.service, claimed.id, claimed.session).await?;
            if signed_in.account.token_generation != claimed.token_generation {
                return Err(ServiceError::unauthorized(
                    "the token was revoked (signed out everywhere, or the guest registered); sign in again",
                ));
            }
            if let Some(session) = claimed.session {
                if !signed_in.has_session(session, state.service.now()) {
                    return Err(ServiceError::unauthorized(
                        "the token's session has ended (signed out, expired, or its refresh token was reused); sign in again",
                    ));
                }
            }
            let account = signed_in.account;
            tracing::Span::current().record("account", tracing::field::display(account.id));
            req.extensions_mut().insert(SignedInAs(account.id));
            Ok(CurrentUser {
                id: account.id,
                username: account.username,
                role: account.role,
                guest: account.guest,
                created_at: account.created_at,
                token_generation: account.token_generation,
                session: claimed.session,
            })
        })
    }
}

/// The state and what the request's token claims, before the store is asked.
fn claimed_user(req: &HttpRequest) -> Result<(web::Data<AppState>, TokenClaims), ServiceError> {
    let state = req
        .app_data::<web::Data<AppState>>()
        .cloned()
        .ok_or_else(|| ServiceError::internal("AppState is not registered"))?;
    let claims = state.tokens.verify(bearer_token(req)?)?;
    Ok((state, claims))
}

/// The token of `Authorization: Bearer <token>` (scheme in any case), or 401.
pub fn bearer_token(req: &HttpRequest) -> Result<&str, ServiceError> {
    let mut values = req.headers().get_all(header::AUTHORIZATION);
    let value = match (values.next(), values.next()) {
        (Some(v), None) => v,
        (None, _) => return Err(ServiceError::unauthorized("a bearer token is required")),
        (Some(_), Some(_)) => {
            return Err(ServiceError::unauthorized("send one Authorization header"));
        }
    };
    let malformed =
        || ServiceError::unauthorized("the Authorization header must be `Bearer <token>`");
    let value = value.to_str().map_err(|_| malformed())?;
    let (scheme, token) = value.trim().split_once(' ').ok_or_else(malformed)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(malformed());
    }
    Ok(token)
}
