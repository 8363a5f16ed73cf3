package dev.dockyard.protocol;

/** A cell for the sandbox's persistent IPython kernel (the jupyter plugin). */
public record IPythonRunCellAction(String code, String thought, boolean includeExtra,
                                   String kernelInitCode, SecurityRisk securityRisk, Double timeout)
        implements Action {

    public IPythonRunCellAction {
        code = code == null ? "" : code;
        thought = thought == null ? "" : thought;
        kernelInitCode = kernelInitCode == null ? "" : kernelInitCode;
        securityRisk = securityRisk == null ? SecurityRisk.UNKNOWN : securityRisk;
    }

    @Override
    public ActionType type() {
        return ActionType.RUN_IPYTHON;
    }
}
