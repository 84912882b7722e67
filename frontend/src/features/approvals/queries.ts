import { graphql } from "../../gql";

/** What an approver needs to decide: in service now against proposed, the evidence, the rule, who may approve. */
export const ApprovalContextViewFragment = graphql(`
  fragment ApprovalContextView on ApprovalContext {
    inService {
      deploymentId
      artifact {
        name
        version
      }
      sha256
      deployedAt
      deployedBy
    }
    proposed {
      name
      version
    }
    proposedSha256
    promotionEvidence {
      environment
      deploymentId
      version
      finishedAt
    }
    explanation
    approvers {
      required
      groups
      roles
      holders
      excluded
    }
  }
`);

/**
 * What the inbox and the deploy page show of the approval of a deploy: its
 * own, and the one a wave of its rollout asks (a deploy whose wave awaits
 * approval is PENDING, and is listed in pendingApprovals all the same).
 */
export const ApprovalViewFragment = graphql(`
  fragment ApprovalView on Deployment {
    id
    tenant
    application
    environment
    state
    requester
    createdAt
    updatedAt
    startAt
    artifact {
      name
      version
    }
    decision {
      rule
      requires
      reason
      approvalsRequired
      approvalGroups
      change
      freeze
      promotionFrom
      promotionSatisfiedBy
    }
    approval {
      status
      required
      remaining
      groups
      expiresAt
      approvals {
        identity
        approved
        comment
        time
      }
    }
    canApprove
    approvalContext {
      ...ApprovalContextView
    }
    rollout {
      state
      currentWave
      waves {
        name
        state
        approval {
          status
          required
          groups
          roles
          expiresAt
          approvals {
            identity
            approved
            comment
            time
          }
        }
      }
    }
  }
`);

export const PendingApprovalsQuery = graphql(`
  query PendingApprovals {
    pendingApprovals {
      ...ApprovalView
    }
  }
`);

export const PendingApprovalsSubscription = graphql(`
  subscription PendingApprovalsLive {
    pendingApprovals {
      ...ApprovalView
    }
  }
`);

export const ApproveDeploymentMutation = graphql(`
  mutation ApproveDeployment($id: ID!, $comment: String) {
    approveDeployment(id: $id, comment: $comment) {
      ...ApprovalView
    }
  }
`);

export const RejectDeploymentMutation = graphql(`
  mutation RejectDeployment($id: ID!, $comment: String) {
    rejectDeployment(id: $id, comment: $comment) {
      ...ApprovalView
    }
  }
`);
