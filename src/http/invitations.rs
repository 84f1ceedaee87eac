//! Withdrawing an invitation (inviting is `lobby::invite_players`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::helpers::{caller, with_etag};
use crate::{auth::CurrentUser, error::ServiceError, http::AppState, service};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/v1/games/{id}/invitations/{username}")
            .route(web::delete().to(withdraw_invitation)),
    );
}

/// Withdraw an invitation to an open game (its creator only), before the invited account
/// takes its seat. The account then sees and joins the game as anyone else: a private game
/// no longer, an unlisted one with its invite code.
#[utoipa::path(delete, path = "/v1/games/{id}/invitations/{username}", tag = "lobby",
    params(
        ("id" = Uuid, Path, description = "The game"),
        ("username" = String, Path, max_length = 64, description = "The invited account"),
    ),
    security(("bearer" = [])),
    responses(
        (status = 200, description = "The game without the invitation", body = service::GameView),
        (status = 400, description = "`invalid_path`"),
        (status = 401, description = "`unauthorized`"),
        (status = 403, description = "`not_the_creator`, `not_a_player`"),
        (status = 404, description = "`game_not_found`, `invitation_not_found`"),
        (status = 409, description = "`game_started`, `game_cancelled`, `invitee_seated`"),
    ))]
pub async fn withdraw_invitation(
    state: web::Data<AppState>,
    user: CurrentUser,
    path: web::Path<(Uuid, String)>,
) -> Result<HttpResponse, ServiceError> {
    let (caller, (id, name)) = (caller(&user), path.into_inner());
    let view = state
        .db(move |store| service::invitations::uninvite(store, &caller, id, &name))
        .await?;
    Ok(with_etag(HttpResponse::Ok(), view.version).json(view))
}
